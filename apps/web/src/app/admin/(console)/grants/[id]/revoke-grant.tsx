'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useTRPC } from '../../../_lib/trpc'
import { errorMessage } from '../../../_lib/errors'
import { useCan } from '../../../_lib/role'
import { ConfirmedAction, useConfirmation } from '../../../_components/confirm-dialog'
import { clientTitle } from '../../clients/client-status'
import type { GrantDetail } from './grant-words'

/** The Revoke grant button and its confirmation, for grants a revocation still changes. */
export function RevokeGrant({ grant, onRevoked }: { grant: GrantDetail; onRevoked(message: string): void }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const confirmation = useConfirmation()
  const canRevoke = useCan('operator')
  const liveTokens = grant.tokens.filter((t) => t.status === 'active' || t.status === 'expired').length

  const revoke = useMutation(
    trpc.grants.revoke.mutationOptions({
      onSuccess: async (r) => {
        confirmation.close()
        onRevoked(
          r.revokedTokens === 0
            ? 'Grant revoked. It had no live token.'
            : `Grant revoked. ${r.revokedTokens} live token${r.revokedTokens === 1 ? '' : 's'} stopped working.`,
        )
        await queryClient.invalidateQueries()
      },
      onError: (e) => {
        confirmation.fail(errorMessage(e, { notFound: 'This grant no longer exists.' }))
        void queryClient.invalidateQueries()
      },
    }),
  )

  // `revocable` is the domain's canRevoke: the grants DELETE /continue/{id} would revoke too. A viewer may not revoke.
  if (!canRevoke || (!grant.revocable && !confirmation.open)) return null
  return (
    <ConfirmedAction
      label="Revoke grant"
      {...confirmation.props}
      title="Revoke this grant?"
      busyLabel="Revoking…"
      busy={revoke.isPending}
      onConfirm={() => revoke.mutate({ id: grant.id })}
    >
      <p>
        {clientTitle(grant.client, grant.client.walletAddress)} will lose access granted by <span className="mono">{grant.id}</span>
        {liveTokens > 0 ? `, and its ${liveTokens} live token${liveTokens === 1 ? '' : 's'} will stop working` : ''}. This cannot be undone.
      </p>
      <p className="muted">
        It can no longer continue the grant or rotate a token, as after its own DELETE /continue. The revocation is recorded in the audit log.
      </p>
    </ConfirmedAction>
  )
}
