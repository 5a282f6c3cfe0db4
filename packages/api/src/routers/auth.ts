import { z } from 'zod'
import { TRPCError } from '@trpc/server'
import { csrfTokenFor, signInAdmin, signOutAdmin } from '@gnap/domain'
import { signedInProcedure, mutationProcedure, personOnly, publicProcedure, router } from '../trpc'
import { OkSchema, SessionInfoSchema } from '../schemas'

export const authRouter = router({
  /**
   * The one procedure without a session. Sets the httpOnly session cookie; the body carries the administrator,
   * the expiry and the CSRF token for later mutations, never the cookie's value.
   * UNAUTHORIZED for a wrong email or password (the same for both), TOO_MANY_REQUESTS after too many failures.
   */
  signIn: publicProcedure
    .use(personOnly)
    .input(z.strictObject({ email: z.string().max(254), password: z.string().max(256) }))
    .output(SessionInfoSchema)
    .mutation(async ({ ctx, input }) => {
      const session = await signInAdmin(ctx.deps, { email: input.email, password: input.password, ip: ctx.ip })
      if (!session) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'wrong email or password' })
      ctx.cookies.set(session.value, session.expiresAt)
      return { admin: session.admin, expiresAt: session.expiresAt, csrfToken: csrfTokenFor(session.value) }
    }),

  /** Who is signed in, until when, and the CSRF token of the session (the console loads it once per page). */
  session: signedInProcedure.output(SessionInfoSchema).query(({ ctx }) => ({
    admin: ctx.admin,
    expiresAt: ctx.session.expiresAt,
    csrfToken: csrfTokenFor(ctx.session.value),
  })),

  /** Ends the session and clears the cookie. */
  signOut: mutationProcedure.output(OkSchema).mutation(async ({ ctx }) => {
    await signOutAdmin(ctx.deps, { sessionValue: ctx.session.value, admin: ctx.admin })
    ctx.cookies.clear()
    return { ok: true as const }
  }),
})
