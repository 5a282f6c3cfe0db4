import QRCode from 'qrcode'
import { z } from 'zod'
import {
  changeAdminPassword,
  ChangeAdminPasswordInputSchema,
  confirmTotpEnrolment,
  disableTotp,
  endMyOtherSessions,
  endMySession,
  getTwoStepStatus,
  listMySessions,
  renewRecoveryCodes,
  SessionHandleInputSchema,
  startTotpEnrolment,
} from '@gnap/domain/operator'
import { enrolmentMutationProcedure, enrolmentProcedure, mutationProcedure, router } from '../trpc'
import { EndedSessionsSchema, MySessionsSchema, OkSchema, RecoveryCodesSchema, TotpEnrolmentSchema, TwoStepStatusSchema } from '../schemas'

// My account (docs/protocol.md §2.17): the signed-in administrator's own password, sessions and two-step sign-in,
// whatever their role. A person's: an API key is refused (FORBIDDEN, the people-only rule of trpc.ts). Every change is audited by the domain.

const CodeInputSchema = z.strictObject({ code: z.string().max(64) })

/**
 * The QR code of an otpauth URI as an SVG data URL, drawn on the server (no script or third party sees the secret;
 * the page's CSP allows `data:` images).
 */
async function qrCodeOf(uri: string): Promise<string> {
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 })
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`
}

export const accountRouter = router({
  /** Whether two-step sign-in is on, since when, how many recovery codes are left, and whether the server requires it. */
  twoStep: enrolmentProcedure.output(TwoStepStatusSchema).query(({ ctx }) => getTwoStepStatus(ctx.deps, ctx.admin.id)),

  /** A new secret, shown once (text and QR code); nothing changes until `confirmTotp`. CONFLICT when already on. */
  startTotp: enrolmentMutationProcedure.output(TotpEnrolmentSchema).mutation(async ({ ctx }) => {
    const { secret, uri } = await startTotpEnrolment(ctx.deps, ctx.admin)
    return { secret, uri, qrCode: await qrCodeOf(uri) }
  }),

  /** Turns it on with a right code of the new secret; the recovery codes, shown once. BAD_REQUEST for a wrong code. */
  confirmTotp: enrolmentMutationProcedure
    .input(CodeInputSchema)
    .output(RecoveryCodesSchema)
    .mutation(({ ctx, input }) => confirmTotpEnrolment(ctx.deps, { admin: ctx.admin, code: input.code })),

  /** Turns it off with a current code or an unused recovery code (a wrong one counts as a failed sign-in). */
  disableTotp: mutationProcedure
    .input(CodeInputSchema)
    .output(OkSchema)
    .mutation(async ({ ctx, input }) => {
      await disableTotp(ctx.deps, { admin: ctx.admin, code: input.code, ip: ctx.ip })
      return { ok: true as const }
    }),

  /** New recovery codes, shown once, with a current code or an unused recovery code; the old ones stop working. */
  renewRecoveryCodes: mutationProcedure
    .input(CodeInputSchema)
    .output(RecoveryCodesSchema)
    .mutation(({ ctx, input }) => renewRecoveryCodes(ctx.deps, { admin: ctx.admin, code: input.code, ip: ctx.ip })),

  /** With the current password (a wrong one counts as a failed sign-in); ends the other sessions. */
  changePassword: mutationProcedure
    .input(ChangeAdminPasswordInputSchema)
    .output(EndedSessionsSchema)
    .mutation(({ ctx, input }) => changeAdminPassword(ctx.deps, { ...input, admin: ctx.admin, sessionValue: ctx.session.value, ip: ctx.ip })),

  /** My live sessions, newest first, this one marked. */
  sessions: mutationProcedure
    .output(MySessionsSchema)
    .query(({ ctx }) => listMySessions(ctx.deps, { admin: ctx.admin, sessionValue: ctx.session.value })),

  /** Ends one of my other sessions. NOT_FOUND when it has ended (or is not mine), BAD_REQUEST for this one. */
  endSession: mutationProcedure
    .input(SessionHandleInputSchema)
    .output(OkSchema)
    .mutation(async ({ ctx, input }) => {
      await endMySession(ctx.deps, { admin: ctx.admin, sessionValue: ctx.session.value, sessionId: input.sessionId })
      return { ok: true as const }
    }),

  /** Ends all my other sessions. */
  endOtherSessions: mutationProcedure
    .output(EndedSessionsSchema)
    .mutation(({ ctx }) => endMyOtherSessions(ctx.deps, { admin: ctx.admin, sessionValue: ctx.session.value })),
})
