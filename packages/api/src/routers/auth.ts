import { z } from 'zod'
import { TRPCError } from '@trpc/server'
import { csrfTokenFor } from '@gnap/domain/kernel'
import { completeAdminSignIn, signInAdmin, signOutAdmin, type AdminSignIn } from '@gnap/domain/operator'
import { enrolmentMutationProcedure, enrolmentProcedure, publicProcedure, router } from '../trpc'
import type { Context } from '../context'
import { OkSchema, SessionInfoSchema, SignInResultSchema } from '../schemas'

/** Sets the session cookie and answers what the console needs: never the cookie's value. */
function signedIn(ctx: Context, session: AdminSignIn) {
  ctx.cookies.set(session.value, session.expiresAt)
  return {
    step: 'signed-in' as const,
    admin: session.admin,
    expiresAt: session.expiresAt,
    csrfToken: csrfTokenFor(session.value),
    mustEnrol: session.mustEnrol,
  }
}

export const authRouter = router({
  /**
   * The first procedure without a session. A right password sets the httpOnly session cookie and the body carries
   * the administrator, the expiry and the CSRF token for later mutations, never the cookie's value; with two-step
   * sign-in on it sets nothing and answers a challenge for `verifyCode` (docs/protocol.md §2.17).
   * UNAUTHORIZED for a wrong email or password (the same for both), TOO_MANY_REQUESTS after too many failures.
   */
  signIn: publicProcedure
    .input(z.strictObject({ email: z.string().max(254), password: z.string().max(256) }))
    .output(SignInResultSchema)
    .mutation(async ({ ctx, input }) => {
      const result = await signInAdmin(ctx.deps, { email: input.email, password: input.password, ip: ctx.ip })
      if (!result) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'wrong email or password' })
      if (result.step === 'code') return result
      return signedIn(ctx, result)
    }),

  /**
   * The second step of a sign-in: the challenge of a right password and a TOTP or recovery code. Sets the session
   * cookie as `signIn` does. UNAUTHORIZED for a wrong or already used code (counted as a failed sign-in),
   * PRECONDITION_FAILED when the challenge is unknown, expired or used (sign in again), TOO_MANY_REQUESTS after too
   * many failures.
   */
  verifyCode: publicProcedure
    .input(z.strictObject({ challenge: z.string().max(128), code: z.string().max(64) }))
    .output(SessionInfoSchema.extend({ step: z.literal('signed-in') }))
    .mutation(async ({ ctx, input }) => {
      const result = await completeAdminSignIn(ctx.deps, { challenge: input.challenge, code: input.code, ip: ctx.ip })
      if (!result) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'wrong code' })
      if (result.step === 'expired')
        throw new TRPCError({ code: 'PRECONDITION_FAILED', message: 'this sign-in has expired: enter your password again' })
      return signedIn(ctx, result)
    }),

  /** Who is signed in, until when, and the CSRF token of the session (the console loads it once per page). */
  session: enrolmentProcedure.output(SessionInfoSchema).query(({ ctx }) => ({
    admin: ctx.admin,
    expiresAt: ctx.session.expiresAt,
    csrfToken: csrfTokenFor(ctx.session.value),
    mustEnrol: ctx.mustEnrol,
  })),

  /** Ends the session and clears the cookie. */
  signOut: enrolmentMutationProcedure.output(OkSchema).mutation(async ({ ctx }) => {
    await signOutAdmin(ctx.deps, { sessionValue: ctx.session.value, admin: ctx.admin })
    ctx.cookies.clear()
    return { ok: true as const }
  }),
})
