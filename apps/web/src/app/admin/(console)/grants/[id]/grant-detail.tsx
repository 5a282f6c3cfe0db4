'use client'

import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { useTRPC } from '../../../_lib/trpc'
import { GRANT_STATUS_MEANING } from '../../../_lib/format'
import { DetailHeader, DetailView, Facts, Panel } from '../../../_components/detail-page'
import { GrantStatusBadge, Time } from '../../../_components/ui'
import { ClientSubline } from '../../clients/client-status'
import { TokenLink } from '../../tokens/token-parts'
import { AccessItem } from './access-item'
import type { GrantDetail } from './grant-words'
import { Interaction } from './interaction-panel'
import { RevokeGrant } from './revoke-grant'
import { TokenChain } from './token-chain'
import { TenantName, useTenants } from '../../../_lib/tenants'

const GRANTS = { href: '/admin/grants', name: 'Grants' }

export function GrantDetailView({ id }: { id: string }) {
  const trpc = useTRPC()
  const grant = useQuery(trpc.grants.byId.queryOptions({ id }))
  const [notice, setNotice] = useState<string | null>(null)

  return (
    <DetailView query={grant} what="grant" heading="Grant" parent={GRANTS} notFound={`No grant has the id ${id}. It may have been mistyped.`}>
      {(g) => <GrantPage grant={g} notice={notice} onNotice={setNotice} />}
    </DetailView>
  )
}

function GrantPage({ grant: g, notice, onNotice: setNotice }: { grant: GrantDetail; notice: string | null; onNotice(text: string): void }) {
  const tenants = useTenants().items
  return (
    <>
      <DetailHeader
        parent={GRANTS}
        title="Grant"
        id={g.id}
        line={[
          `From ${g.client.thumbprint !== null ? 'a directed identity' : (g.client.name ?? 'a client that gave no name')}`,
          <GrantStatusBadge status={g.status} />,
        ]}
        action={<RevokeGrant grant={g} onRevoked={setNotice} />}
        notice={notice}
      />

      <div className="grid-2">
        <Panel id="summary" heading="Summary">
          <Facts
            facts={[
              [
                'Status',
                <>
                  <GrantStatusBadge status={g.status} /> {GRANT_STATUS_MEANING[g.status]}
                </>,
              ],
              [
                'Client',
                <>
                  {g.client.thumbprint !== null ? 'Directed identity' : (g.client.name ?? <span className="muted">No name given</span>)}
                  <ClientSubline client={g.client} />
                </>,
              ],
              g.tenantId !== null && ['Tenant', <TenantName id={g.tenantId} tenants={tenants} />],
              ['Requested', <Time value={g.createdAt} />],
              ['Last change', <Time value={g.updatedAt} />],
              ['Finalized', <Time value={g.finalizedAt} empty="Not yet" />],
              ['Continuation id', g.continueId, 'mono'],
            ]}
          />
        </Panel>
        <Interaction interaction={g.interaction} />
      </div>

      {g.subjects.length > 0 && (
        <Panel id="subject" heading={<>Wallet addresses to confirm ({g.subjects.length})</>}>
          <p>The client asked the owner to confirm that they control {g.subjects.length === 1 ? 'this wallet address' : 'these wallet addresses'}:</p>
          <ul className="plain">
            {g.subjects.map((s) => (
              <li key={s}>
                <code>{s}</code>
              </li>
            ))}
          </ul>
        </Panel>
      )}

      <Panel id="access" heading={<>Access ({g.accessItems.length})</>}>
        {g.accessItems.length === 0 && (
          <p className="muted">No access: this grant only asks the owner to confirm a wallet address, and issues no token.</p>
        )}
        {g.accessItems.map((a, i) => (
          <AccessItem key={i} access={a} index={i} />
        ))}
      </Panel>

      <Panel id="tokens" heading="Token rotations" anchor="tokens">
        <TokenChain tokens={g.tokens} grant={{ continueId: g.continueId, interactive: g.interaction !== null }} />
      </Panel>

      <Panel id="history" heading="History">
        <ol className="timeline">
          {g.history.map((e, i) => (
            <li key={i} className={i === g.history.length - 1 ? 'current' : undefined}>
              <Time value={e.at} />
              {e.description}
              {e.managementId && (
                <>
                  {' '}
                  (
                  <TokenLink id={e.managementId} />)
                </>
              )}
            </li>
          ))}
        </ol>
      </Panel>
    </>
  )
}
