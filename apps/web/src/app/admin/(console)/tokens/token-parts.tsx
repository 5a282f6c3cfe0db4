import Link from 'next/link'
import { formatSeconds } from '../../_lib/format'
import type { Fact } from '../../_components/detail-page'
import { Time } from '../../_components/ui'

// What the token page and a grant's rotation chain both show of a token.

interface TokenTimes {
  isExpired: boolean
  expiresAt: Date
  expiresInSeconds: number
  rotatedAt: Date | null
  replacedByManagementId: string | null
}

/** A link to a token's page, by its management id. */
export function TokenLink({ id, label }: { id: string; label?: string }) {
  return (
    <Link href={`/admin/tokens/${id}`} className="mono" aria-label={label}>
      {id}
    </Link>
  )
}

/** When the token expires (or expired), and its lifetime. */
export function expiresFact(t: TokenTimes): Fact {
  return [
    t.isExpired ? 'Expired' : 'Expires',
    <>
      <Time value={t.expiresAt} />
      <span className="cell-sub">{formatSeconds(t.expiresInSeconds)} after it was issued</span>
    </>,
  ]
}

/** When the token was rotated, and into which one. */
export function Rotated({ token: t }: { token: TokenTimes }) {
  if (!t.rotatedAt) return <span className="muted">Not rotated</span>
  return (
    <>
      <Time value={t.rotatedAt} />
      {t.replacedByManagementId && (
        <span className="cell-sub">
          into <TokenLink id={t.replacedByManagementId} />
        </span>
      )}
    </>
  )
}
