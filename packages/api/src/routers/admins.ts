import {
  AdminIdInputSchema,
  changeAdminRole,
  ChangeAdminRoleInputSchema,
  disableAdmin,
  DisableAdminInputSchema,
  enableAdmin,
  inviteAdmin,
  InviteAdminInputSchema,
  listAdmins,
  resetAdminPassword,
  resetAdminTwoStep,
  signOutAdminEverywhere,
} from '@gnap/domain/operator'
import { adminPersonProcedure, router, viewerProcedure } from '../trpc'
import {
  AdminIdResultSchema,
  AdminInvitationSchema,
  AdminListSchema,
  AdminResetSchema,
  AdminRoleResultSchema,
  AdminDisabledSchema,
  AdminSessionsEndedSchema,
} from '../schemas'

// Administrators in the console (docs/protocol.md §2.14): every role reads the list, only an `admin` person changes
// it (never an API key: a key that could invite a person would outlive its own revocation, docs/protocol.md §2.18). Every
// change writes an audit entry naming who made it, in the transaction of the change. NOT_FOUND for an unknown
// administrator; CONFLICT for a change that would leave no active admin, for disabling oneself, and for a taken email.
export const adminsRouter = router({
  /** Every administrator with their role, status and last sign-in, by email. */
  list: viewerProcedure
    .meta({ rest: { method: 'GET', path: '/admins', summary: 'Every administrator with their role, status and last sign-in' } })
    .output(AdminListSchema)
    .query(({ ctx }) => listAdmins(ctx.deps)),

  /** A new administrator with a role and no password; the one-time link to set it is shown once. */
  invite: adminPersonProcedure
    .input(InviteAdminInputSchema)
    .output(AdminInvitationSchema)
    .mutation(({ ctx, input }) => inviteAdmin(ctx.deps, { invite: input, actor: ctx.actor })),

  changeRole: adminPersonProcedure
    .input(ChangeAdminRoleInputSchema)
    .output(AdminRoleResultSchema)
    .mutation(({ ctx, input }) => changeAdminRole(ctx.deps, { change: input, actor: ctx.actor })),

  /** Ends their sessions; they cannot sign in until enabled, nor their keys work. `revokeKeys` revokes those keys too. */
  disable: adminPersonProcedure
    .input(DisableAdminInputSchema)
    .output(AdminDisabledSchema)
    .mutation(({ ctx, input }) => disableAdmin(ctx.deps, { change: input, actor: ctx.actor })),

  enable: adminPersonProcedure
    .input(AdminIdInputSchema)
    .output(AdminIdResultSchema)
    .mutation(({ ctx, input }) => enableAdmin(ctx.deps, { change: input, actor: ctx.actor })),

  /** Their password stops working and their sessions end; the one-time link to set a new one is shown once. */
  resetPassword: adminPersonProcedure
    .input(AdminIdInputSchema)
    .output(AdminResetSchema)
    .mutation(({ ctx, input }) => resetAdminPassword(ctx.deps, { change: input, actor: ctx.actor })),

  /** Ends every session of the administrator. */
  signOutEverywhere: adminPersonProcedure
    .input(AdminIdInputSchema)
    .output(AdminSessionsEndedSchema)
    .mutation(({ ctx, input }) => signOutAdminEverywhere(ctx.deps, { change: input, actor: ctx.actor })),

  /** Turns off another administrator's two-step sign-in (lost phone and recovery codes); their sessions end. */
  resetTwoStep: adminPersonProcedure
    .input(AdminIdInputSchema)
    .output(AdminSessionsEndedSchema)
    .mutation(({ ctx, input }) => resetAdminTwoStep(ctx.deps, { change: input, actor: ctx.actor })),
})
