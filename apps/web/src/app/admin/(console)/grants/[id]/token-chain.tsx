import Link from 'next/link'
import type { inferRouterOutputs } from '@trpc/server'
import type { AppRouter } from '@gnap/api'
import { formatSeconds } from '../../../_lib/format'
import { Empty, Time, TokenStatusBadge } from '../../../_components/ui'

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
              <Link href={`/admin/tokens/${t.managementId}`} className="mono" aria-label={`Token ${i + 1}: ${t.managementId}`}>
                {t.managementId}
              </Link>
            </div>
            <dl className="facts">
              <dt>Issued</dt>
              <dd>
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
              </dd>
              <dt>{t.isExpired ? 'Expired' : 'Expires'}</dt>
              <dd>
                <Time value={t.expiresAt} />
                <span className="cell-sub">{formatSeconds(t.expiresInSeconds)} after it was issued</span>
              </dd>
              {t.rotatedAt && (
                <>
                  <dt>Rotated</dt>
                  <dd>
                    <Time value={t.rotatedAt} />
                    {t.replacedByManagementId && (
                      <span className="cell-sub">
                        into{' '}
                        <Link href={`/admin/tokens/${t.replacedByManagementId}`} className="mono">
                          {t.replacedByManagementId}
                        </Link>
                      </span>
                    )}
                  </dd>
                </>
              )}
              {t.revokedAt && (
                <>
                  <dt>Revoked</dt>
                  <dd>
                    <Time value={t.revokedAt} />
                  </dd>
                </>
              )}
            </dl>
          </li>
        ))}
      </ol>
    </>
  )
}
