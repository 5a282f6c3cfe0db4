'use client'

import { useTRPC } from '../../../_lib/trpc'
import { useCan } from '../../../_lib/role'
import { DangerAction } from '../../../_components/danger-action'
import { clientTitle } from '../../clients/client-status'
import type { GrantDetail } from './grant-words'

const tokensWord = (n: number) => `${n} live token${n === 1 ? '' : 's'}`

/** The Revoke grant button and its confirmation, for grants a revocation still changes. */
export function RevokeGrant({ grant, onRevoked }: { grant: GrantDetail; onRevoked(message: string): void }) {
  const trpc = useTRPC()
  const canRevoke = useCan('operator')
  const liveTokens = grant.tokens.filter((t) => t.status === 'active' || t.status === 'expired').length
  // A viewer may not revoke.
  if (!canRevoke) return null
  return (
    <DangerAction
      words={['Revoke grant', 'Revoke this grant?', 'Revoking\u2026']}
      // `revocable` is the domain's canRevoke: the grants DELETE /continue/{id} would revoke too.
      available={grant.revocable}
      mutation={trpc.grants.revoke.mutationOptions()}
      input={() => ({ id: grant.id })}
      onSuccess={(r) =>
        onRevoked(r.revokedTokens === 0 ? 'Grant revoked. It had no live token.' : `Grant revoked. ${tokensWord(r.revokedTokens)} stopped working.`)
      }
      notFound="This grant no longer exists."
      refreshOnFailure
    >
      <p>
        {clientTitle(grant.client, grant.client.walletAddress)} will lose access granted by <span className="mono">{grant.id}</span>
        {liveTokens > 0 ? `, and its ${tokensWord(liveTokens)} will stop working` : ''}. This cannot be undone.
      </p>
      <p className="muted">
        It can no longer continue the grant or rotate a token, as after its own DELETE /continue. The revocation is recorded in the audit log.
      </p>
    </DangerAction>
  )
}
