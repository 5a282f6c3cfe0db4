/** A client's status as a badge: allowed, or blocked (every request refused). */
export function ClientStatusBadge({ blocked }: { blocked: boolean }) {
  return <span className={`badge ${blocked ? 'revoked' : 'issued'}`}>{blocked ? 'Blocked' : 'Allowed'}</span>
}

/** The client page of a wallet address. */
export const clientHref = (walletAddress: string) => `/admin/clients/view?address=${encodeURIComponent(walletAddress)}`
