/** An owner's status as a badge: active, or disabled (cannot sign in). */
export function OwnerStatusBadge({ status }: { status: 'active' | 'disabled' }) {
  return <span className={`badge ${status === 'active' ? 'issued' : 'revoked'}`}>{status === 'active' ? 'Active' : 'Disabled'}</span>
}
