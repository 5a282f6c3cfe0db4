import type { inferRouterOutputs } from '@trpc/server'
import type { AppRouter } from '@gnap/api'
import { Facts } from '../../../_components/detail-page'
import { Empty, Time, TokenStatusBadge } from '../../../_components/ui'
import { expiresFact, Rotated, TokenLink } from '../../tokens/token-parts'

type TokenView = inferRouterOutputs<AppRouter>['grants']['byId']['tokens'][number]

/**
 * A grant's tokens from the first to the current one, as a timeline: when each was issued and by which request,
 * when it expires, when it was rotated (into which token) or revoked.
 */
export function TokenChain({ tokens, grant }: { tokens: TokenView[]; grant: { continueId: string; interactive: boolean } }) {
  if (tokens.length === 0) {
    return (
      <Empty title="No access token was issued for this grant.">
        <p>Tokens appear here once the client receives one.</p>
      </Empty>
    )
  }
  const rotations = tokens.filter((t) => t.rotatedAt !== null).length
  return (
    <>
      <p className="muted">
        {tokens.length} token{tokens.length === 1 ? '' : 's'}, {rotations} rotation{rotations === 1 ? '' : 's'}, first to current.
      </p>
      <ol className="chain" aria-label="Rotation chain">
        {tokens.map((t, i) => (
          <li key={t.managementId} className={t.status === 'active' ? undefined : t.status === 'revoked' ? 'revoked' : 'ended'}>
            <div className="chain-head">
              <h3>Token {i + 1}</h3>
              <TokenStatusBadge status={t.status} />
              <TokenLink id={t.managementId} label={`Token ${i + 1}: ${t.managementId}`} />
            </div>
            <Facts
              facts={[
                ['Issued', <Issued token={t} grant={grant} />],
                expiresFact(t),
                t.rotatedAt && ['Rotated', <Rotated token={t} />],
                t.revokedAt && ['Revoked', <Time value={t.revokedAt} />],
              ]}
            />
          </li>
        ))}
      </ol>
    </>
  )
}

/** When a token was issued, and by which request. */
function Issued({ token: t, grant }: { token: TokenView; grant: { continueId: string; interactive: boolean } }) {
  return (
    <>
      <Time value={t.issuedAt} />
      <span className="cell-sub">
        {t.replacesManagementId ? (
          <>
            by the rotation request <code>POST /token/{t.replacesManagementId}</code>
          </>
        ) : grant.interactive ? (
          <>
            by the continuation request <code>POST /continue/{grant.continueId}</code>
          </>
        ) : (
          <>
            with the grant, in answer to the grant request <code>POST /</code>
          </>
        )}
      </span>
    </>
  )
}
