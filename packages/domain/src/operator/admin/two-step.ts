import type { Deps } from '../../protocol/deps'
import { attemptSignInStep } from '../sign-in/sign-in-limit'
import {
  activateTotp,
  clearTotp,
  countUnusedRecoveryCodes,
  findAdminTotp,
  replaceRecoveryCodes,
  setPendingTotp,
  useRecoveryCode,
  useTotpStep,
} from './admin-totp.repo'
import type { AdminIdentity } from './admin-session'
import { insertAuditEntry } from '../audit/audit.repo'
import { ConsoleError } from './console-error'
import { isTotpCodeShape, matchTotpStep, newRecoveryCode, newTotpSecret, recoveryCodeHash, RECOVERY_CODE_COUNT, totpUri } from './totp'

// An administrator's two-step sign-in (docs/protocol.md §2.17): enrolment, the code check shared by sign-in and
// the changes that need a code, turning it off and new recovery codes. Every change is audited.

/** How long a started enrolment waits for its first code. */
export const TOTP_ENROLMENT_SECONDS = 15 * 60

export interface TwoStepStatus {
  enabled: boolean
  enabledAt: Date | null
  /** Unused recovery codes (0 when two-step sign-in is off). */
  recoveryCodesLeft: number
  /** ADMIN_REQUIRE_TOTP: the administrator may do nothing else until it is on. */
  required: boolean
}

const notFound = () => new ConsoleError('not_found', 'Your account could not be found. Sign in again.')
const wrongCode = () => new ConsoleError('bad_request', 'That code is not right. Type the code your app shows now, or an unused recovery code.')

export async function getTwoStepStatus(deps: Deps, adminId: string): Promise<TwoStepStatus> {
  const row = await findAdminTotp(deps.sql, adminId)
  if (!row) throw notFound()
  const enabled = row.totpSecret !== null
  return {
    enabled,
    enabledAt: row.totpEnabledAt,
    recoveryCodesLeft: enabled ? await countUnusedRecoveryCodes(deps.sql, adminId) : 0,
    required: deps.config.requireAdminTotp,
  }
}

/**
 * Starts enrolment: a new secret, to be shown once as a QR code of its otpauth:// URI and as text for typing in.
 * Nothing changes for sign-in until `confirmTotpEnrolment` gets a right code. Starting again replaces the secret.
 * @throws ConsoleError conflict when two-step sign-in is already on
 */
export async function startTotpEnrolment(deps: Deps, admin: AdminIdentity): Promise<{ secret: string; uri: string }> {
  const row = await findAdminTotp(deps.sql, admin.id)
  if (!row) throw notFound()
  if (row.totpSecret !== null) throw new ConsoleError('conflict', 'Two-step sign-in is already on. Turn it off first to move it to another device.')
  const secret = newTotpSecret()
  await setPendingTotp(deps.sql, admin.id, secret, deps.clock())
  return { secret, uri: totpUri(secret, admin.email) }
}

/**
 * Turns two-step sign-in on when `code` is right for the started enrolment's secret, and returns the recovery codes
 * (shown once: only their hashes are kept). A wrong code leaves it off.
 * @throws ConsoleError bad_request for a wrong code or no live enrolment, conflict when it is already on
 */
export async function confirmTotpEnrolment(deps: Deps, input: { admin: AdminIdentity; code: string }): Promise<{ recoveryCodes: string[] }> {
  const now = deps.clock()
  const row = await findAdminTotp(deps.sql, input.admin.id)
  if (!row) throw notFound()
  if (row.totpSecret !== null) throw new ConsoleError('conflict', 'Two-step sign-in is already on.')
  const pending = row.totpPendingSecret
  if (!pending || !row.totpPendingAt || now.getTime() - row.totpPendingAt.getTime() > TOTP_ENROLMENT_SECONDS * 1000) {
    throw new ConsoleError('bad_request', 'This set-up has expired. Start again to get a new QR code.')
  }
  const step = matchTotpStep(pending, input.code, now, null)
  if (step === null)
    throw new ConsoleError('bad_request', 'That code is not right. Check that your phone’s clock is right and type the code the app shows now.')
  const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode)
  await deps.sql.transaction(async (tx) => {
    if ((await activateTotp(tx, { adminId: input.admin.id, secret: pending, step, now })) === 0) {
      throw new ConsoleError('conflict', 'Two-step sign-in changed in the meantime. Reload the page.')
    }
    await replaceRecoveryCodes(tx, input.admin.id, recoveryCodes.map(recoveryCodeHash))
    await insertAuditEntry(tx, { actor: input.admin.email, action: 'admin.totp-enable', target: `admin:${input.admin.email}`, now })
  })
  deps.log.info({ adminId: input.admin.id }, 'administrator turned on two-step sign-in')
  return { recoveryCodes }
}

/**
 * Checks a second-step code of an administrator with two-step sign-in on: a TOTP code of the current step (or one
 * either side) not used before, or an unused recovery code, which is then used up. Counted like a password under
 * the sign-in limit of the administrator's email and `ip` (docs/protocol.md §2.11): a wrong code is a failed
 * sign-in. Which kind of code worked, or null.
 * @throws GnapError request_denied (429) when too many sign-ins failed
 */
export function checkSecondStep(
  deps: Deps,
  input: { admin: { id: string; email: string }; code: string; ip: string | null },
): Promise<'totp' | 'recovery' | null> {
  const code = input.code.slice(0, 64)
  return attemptSignInStep(deps, {
    scope: 'admin',
    email: input.admin.email,
    ip: input.ip,
    check: async () => {
      const now = deps.clock()
      const row = await findAdminTotp(deps.sql, input.admin.id)
      if (!row?.totpSecret) return null
      if (isTotpCodeShape(code)) {
        const step = matchTotpStep(row.totpSecret, code, now, row.totpLastStep)
        // The conditional update decides between two requests with the same code: one wins.
        return step !== null && (await useTotpStep(deps.sql, input.admin.id, step)) === 1 ? 'totp' : null
      }
      return (await useRecoveryCode(deps.sql, input.admin.id, recoveryCodeHash(code), now)) === 1 ? 'recovery' : null
    },
  })
}

/**
 * Turns two-step sign-in off, with a current code (or an unused recovery code) as proof that the person holds the
 * device, not only the session.
 * @throws ConsoleError bad_request for a wrong code, conflict when it is off; GnapError 429 past the sign-in limit
 */
export async function disableTotp(deps: Deps, input: { admin: AdminIdentity; code: string; ip: string | null }): Promise<void> {
  const row = await findAdminTotp(deps.sql, input.admin.id)
  if (!row) throw notFound()
  if (row.totpSecret === null) throw new ConsoleError('conflict', 'Two-step sign-in is already off.')
  if (!(await checkSecondStep(deps, input))) throw wrongCode()
  const now = deps.clock()
  await deps.sql.transaction(async (tx) => {
    await clearTotp(tx, input.admin.id)
    await insertAuditEntry(tx, { actor: input.admin.email, action: 'admin.totp-disable', target: `admin:${input.admin.email}`, now })
  })
  deps.log.info({ adminId: input.admin.id }, 'administrator turned off two-step sign-in')
}

/**
 * New recovery codes (the old ones stop working), with a current code (or an unused recovery code).
 * @throws ConsoleError bad_request for a wrong code, conflict when two-step sign-in is off; GnapError 429
 */
export async function renewRecoveryCodes(
  deps: Deps,
  input: { admin: AdminIdentity; code: string; ip: string | null },
): Promise<{ recoveryCodes: string[] }> {
  const row = await findAdminTotp(deps.sql, input.admin.id)
  if (!row) throw notFound()
  if (row.totpSecret === null) throw new ConsoleError('conflict', 'Two-step sign-in is off: turn it on first.')
  if (!(await checkSecondStep(deps, input))) throw wrongCode()
  const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode)
  const now = deps.clock()
  await deps.sql.transaction(async (tx) => {
    await replaceRecoveryCodes(tx, input.admin.id, recoveryCodes.map(recoveryCodeHash))
    await insertAuditEntry(tx, { actor: input.admin.email, action: 'admin.recovery-codes-renew', target: `admin:${input.admin.email}`, now })
  })
  return { recoveryCodes }
}
