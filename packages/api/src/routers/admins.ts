import type { Deps } from '@gnap/domain/protocol'
import * as domain from '@gnap/domain/operator'
import { adminPerson, router, viewer } from '../trpc'
import {
  AdminIdResultSchema,
  AdminInvitationSchema,
  AdminListSchema,
  AdminResetSchema,
  AdminRoleResultSchema,
  AdminDisabledSchema,
  AdminSessionsEndedSchema,
  NoInputSchema,
} from '../schemas'

/** The administrators' use cases take `{ change, actor }`: the parsed input as the change, beside the caller. */
const asChange =
  <C extends object, R>(useCase: (deps: Deps, input: { change: C; actor: domain.ConsoleActor }) => R) =>
  (deps: Deps, { actor, ...change }: C & { actor: domain.ConsoleActor }) =>
    useCase(deps, { change: change as C, actor })

// Administrators in the console (docs/protocol.md §2.14): every role reads the list, only an `admin` person changes
// it (never an API key: a key that could invite a person would outlive its own revocation, docs/protocol.md §2.18). Every
// change writes an audit entry naming who made it, in the transaction of the change. NOT_FOUND for an unknown
// administrator; CONFLICT for a change that would leave no active admin, for disabling oneself, and for a taken email.
export const adminsRouter = router({
  /** Every administrator with their role, status and last sign-in, by email. */
  list: viewer.query(
    ['GET', '/admins', 'Every administrator with their role, status and last sign-in'],
    NoInputSchema,
    AdminListSchema,
    domain.listAdmins,
  ),

  /** A new administrator with a role and no password; the one-time link to set it is shown once. */
  invite: adminPerson.mutation(null, domain.InviteAdminInputSchema, AdminInvitationSchema, (deps, { actor, ...invite }) =>
    domain.inviteAdmin(deps, { invite, actor }),
  ),

  changeRole: adminPerson.mutation(null, domain.ChangeAdminRoleInputSchema, AdminRoleResultSchema, asChange(domain.changeAdminRole)),

  /** Ends their sessions; they cannot sign in until enabled, nor their keys work. `revokeKeys` revokes those keys too. */
  disable: adminPerson.mutation(null, domain.DisableAdminInputSchema, AdminDisabledSchema, asChange(domain.disableAdmin)),

  enable: adminPerson.mutation(null, domain.AdminIdInputSchema, AdminIdResultSchema, asChange(domain.enableAdmin)),

  /** Their password stops working and their sessions end; the one-time link to set a new one is shown once. */
  resetPassword: adminPerson.mutation(null, domain.AdminIdInputSchema, AdminResetSchema, asChange(domain.resetAdminPassword)),

  /** Ends every session of the administrator. */
  signOutEverywhere: adminPerson.mutation(null, domain.AdminIdInputSchema, AdminSessionsEndedSchema, asChange(domain.signOutAdminEverywhere)),

  /** Turns off another administrator's two-step sign-in (lost phone and recovery codes); their sessions end. */
  resetTwoStep: adminPerson.mutation(null, domain.AdminIdInputSchema, AdminSessionsEndedSchema, asChange(domain.resetAdminTwoStep)),
})
