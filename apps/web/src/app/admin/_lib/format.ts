import type { GrantStatusName } from '@gnap/domain/protocol'
import type { AuditAction, TokenStatus } from '@gnap/domain/operator'

// Formatting shared by the console's pages. Times are in UTC, as the access items' plain words are: the same
// text on the server and in the browser, whatever the machine's zone.

const dateTime = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
  timeZone: 'UTC',
})
const dayOnly = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' })

/** `15 Jan 2025, 12:00:05 UTC` */
export const formatDateTime = (d: Date) => `${dateTime.format(d)} UTC`

/** `15 Jan` */
export const formatDay = (d: Date) => dayOnly.format(d)

/** `10 minutes`, `1 hour 30 minutes`, `45 seconds` */
export function formatSeconds(total: number): string {
  const parts: string[] = []
  const units: [number, string][] = [
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
    [1, 'second'],
  ]
  let rest = Math.max(0, Math.round(total))
  for (const [size, name] of units) {
    const n = Math.floor(rest / size)
    rest -= n * size
    if (n > 0) parts.push(`${n} ${name}${n === 1 ? '' : 's'}`)
  }
  return parts.slice(0, 2).join(' ') || '0 seconds'
}

export const GRANT_STATUS_LABEL: Record<GrantStatusName, string> = {
  pending: 'Pending',
  approved: 'Approved',
  issued: 'Issued',
  revoked: 'Revoked',
  rejected: 'Rejected',
  expired: 'Expired',
}

/** What each status means, for the detail page. */
export const GRANT_STATUS_MEANING: Record<GrantStatusName, string> = {
  pending: 'Waiting for the resource owner to decide.',
  approved: 'The owner approved; the client has not collected its token yet.',
  issued: 'Finalized: the client received its access token.',
  revoked: 'Finalized: revoked, every token of the grant stopped working.',
  rejected: 'Finalized: the owner denied the request, no token was issued.',
  expired: 'Finalized: the owner did not answer before the request expired, no token was issued.',
}

export const TOKEN_STATUS_LABEL: Record<TokenStatus, string> = {
  active: 'Active',
  expired: 'Expired',
  rotated: 'Rotated',
  revoked: 'Revoked',
}

export const ACCESS_TYPE_LABEL: Record<string, string> = {
  'incoming-payment': 'Incoming payments',
  'outgoing-payment': 'Outgoing payments',
  quote: 'Quotes',
}

/** What each action did, in the console's words: every action of the domain has one (the type checks it). */
export const AUDIT_ACTION_LABEL: Record<AuditAction, string> = {
  'grant.revoke': 'Revoked a grant',
  'token.revoke': 'Revoked a token',
  'admin.sign-in': 'Signed in',
  'admin.sign-out': 'Signed out',
  'admin.password-change': 'Changed their password',
  'admin.session-end': 'Ended a session',
  'admin.totp-enable': 'Turned on two-step sign-in',
  'admin.totp-disable': 'Turned off two-step sign-in',
  'admin.recovery-codes-renew': 'Made new recovery codes',
  'owner.create': 'Created an owner',
  'owner.edit': 'Edited an owner',
  'owner.wallet-address.add': 'Added a wallet address',
  'owner.wallet-address.remove': 'Removed a wallet address',
  'owner.disable': 'Disabled an owner',
  'owner.enable': 'Enabled an owner',
  'owner.delete': 'Deleted an owner',
  'owner.link': 'Created a sign-in link',
  'owner.set-password': 'Set their password (owner)',
  'owner.import': 'Imported an owner',
  'admin.invite': 'Invited an administrator',
  'admin.role': 'Changed an administrator’s role',
  'admin.disable': 'Disabled an administrator',
  'admin.enable': 'Enabled an administrator',
  'admin.reset-password': 'Reset an administrator’s password',
  'admin.sign-out-everywhere': 'Signed an administrator out everywhere',
  'admin.reset-two-step': 'Turned off an administrator’s two-step sign-in',
  'admin.set-password': 'Set their password with a link',
  'client.block': 'Blocked a client',
  'client.unblock': 'Unblocked a client',
  'api-key.create': 'Created an API key',
  'api-key.revoke': 'Revoked an API key',
  'webhook.create': 'Added a webhook endpoint',
  'webhook.update': 'Changed a webhook endpoint',
  'webhook.enable': 'Enabled a webhook endpoint',
  'webhook.disable': 'Disabled a webhook endpoint',
  'webhook.rotate-secret': 'Rotated a webhook signing secret',
  'webhook.delete': 'Deleted a webhook endpoint',
  'webhook.test': 'Sent a webhook test event',
  'webhook.replay': 'Replayed a webhook delivery',
}

/** An entry's action in words; an action this console does not know is shown as recorded. */
export const auditActionLabel = (action: string): string => (AUDIT_ACTION_LABEL as Record<string, string | undefined>)[action] ?? action

/** `{ value: '2500', assetCode: 'USD', assetScale: 2 }` → `25.00 USD` (exact: integer arithmetic on the digits). */
export function formatAmount(a: { value: string; assetCode: string; assetScale: number }): string {
  if (!/^\d+$/.test(a.value) || !Number.isInteger(a.assetScale) || a.assetScale < 0 || a.assetScale > 255) return `${a.value} ${a.assetCode}`
  const digits = a.value.replace(/^0+(?=\d)/, '').padStart(a.assetScale + 1, '0')
  const whole = digits.slice(0, digits.length - a.assetScale).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  const fraction = digits.slice(digits.length - a.assetScale)
  return `${fraction ? `${whole}.${fraction}` : whole} ${a.assetCode}`
}

export const sentenceCase = (s: string) => (s ? s[0]!.toUpperCase() + s.slice(1) : s)

/** A path parameter as typed (ids are plain, so decoding twice is harmless; a stray `%` is kept as it is). */
export function pathParam(value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}
