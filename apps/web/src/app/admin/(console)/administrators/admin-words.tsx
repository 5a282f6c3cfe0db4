import type { AdminRole, AdminStatus } from '@gnap/domain/operator'

/** What each role may do, in the words the console uses (docs/protocol.md §2.14). */
export const ROLE_TEXT: Record<AdminRole, { label: string; may: string }> = {
  viewer: { label: 'Viewer', may: 'reads everything, changes nothing' },
  operator: { label: 'Operator', may: 'also revokes grants and tokens' },
  admin: { label: 'Admin', may: 'also manages owners and administrators' },
}

const STATUS: Record<AdminStatus, { label: string; badge: string }> = {
  active: { label: 'Active', badge: 'issued' },
  invited: { label: 'Waiting for a password', badge: 'pending' },
  disabled: { label: 'Disabled', badge: 'revoked' },
}

/** An administrator's status as a badge: active, waiting for a password (invited or reset), or disabled. */
export function AdminStatusBadge({ status }: { status: AdminStatus }) {
  return <span className={`badge ${STATUS[status].badge}`}>{STATUS[status].label}</span>
}
