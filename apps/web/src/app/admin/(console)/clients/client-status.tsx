/** A client's status as a badge: allowed, or blocked (every request refused). */
export function ClientStatusBadge({ blocked }: { blocked: boolean }) {
  return <span className={`badge ${blocked ? 'revoked' : 'issued'}`}>{blocked ? 'Blocked' : 'Allowed'}</span>
}

/** The client page of a wallet address. */
export const clientHref = (walletAddress: string) => `/admin/clients/view?address=${encodeURIComponent(walletAddress)}`

/** What a client is called on the console: the name it gave, or "Directed identity" for a client known only by its key. */
export const clientTitle = (c: { name: string | null; thumbprint: string | null }, noName = 'No name given'): string =>
  c.thumbprint !== null ? 'Directed identity' : (c.name ?? noName)

/** The line under a client's name: its wallet address, or the thumbprint of the key it identifies itself with. */
export function ClientSubline({ client }: { client: { walletAddress: string; thumbprint: string | null } }) {
  return client.thumbprint !== null ? (
    <span className="cell-sub">
      Key thumbprint <span className="mono">{client.thumbprint}</span>
    </span>
  ) : (
    <span className="cell-sub">{client.walletAddress}</span>
  )
}
