'use client'

import { useQuery } from '@tanstack/react-query'
import { useState, type Dispatch, type SetStateAction } from 'react'
import { useTRPC } from '../../../_lib/trpc'
import { ForRole, useCan } from '../../../_lib/role'
import { DetailHeader, DetailView, Panel } from '../../../_components/detail-page'
import { EndpointStatusBadge, NewSecret, type WebhookEndpoint } from '../webhook-parts'
import { DeliveryLog } from './delivery-log'
import { EditEndpoint } from './edit-endpoint'
import { EndpointDangerZone } from './endpoint-danger-zone'
import { EndpointFacts } from './endpoint-facts'
import { NOT_FOUND } from './endpoint-words'
import { RotateSecret } from './rotate-secret'
import { SendTest } from './send-test'

const WEBHOOKS = { href: '/admin/webhooks', name: 'Webhooks' }

/** One endpoint: what it receives, its delivery log, and for an admin every change (edit, test, rotate, disable, delete). */
export function WebhookDetailView({ id }: { id: string }) {
  const trpc = useTRPC()
  // Refreshed now and then, as the log is: its counts follow the deliveries.
  const endpoint = useQuery({ ...trpc.webhooks.byId.queryOptions({ id }), refetchInterval: (q) => (q.state.status === 'error' ? false : 10_000) })
  // Held here, not in the page below: a secret shown once outlives a refresh that failed.
  const notice = useState<string | null>(null)
  const secret = useState<{ value: string; overlap: string } | null>(null)
  return (
    <DetailView query={endpoint} what="endpoint" heading="Webhook endpoint" parent={WEBHOOKS} notFound={NOT_FOUND}>
      {(e) => <EndpointPage endpoint={e} notice={notice} secret={secret} />}
    </DetailView>
  )
}

type Held<T> = [T, Dispatch<SetStateAction<T>>]

function EndpointPage({
  endpoint: e,
  notice: [notice, setNotice],
  secret: [secret, setSecret],
}: {
  endpoint: WebhookEndpoint
  notice: Held<string | null>
  secret: Held<{ value: string; overlap: string } | null>
}) {
  const canManage = useCan('admin')
  return (
    <>
      <DetailHeader
        parent={WEBHOOKS}
        title="Webhook endpoint"
        line={[<code>{e.url}</code>, <EndpointStatusBadge enabled={e.enabled} />]}
        notice={notice}
      >
        {secret && (
          <NewSecret
            heading="The new signing secret"
            url={e.url}
            secret={secret.value}
            overlap={secret.overlap}
            onDone={() => {
              setSecret(null)
              setNotice('Secret rotated. Deliveries are signed with the new secret.')
            }}
          />
        )}
      </DetailHeader>

      <div className="grid-2">
        <Panel id="endpoint" heading="Endpoint">
          <EndpointFacts endpoint={e} />
          <ForRole role="admin">
            <EditEndpoint endpoint={e} onDone={setNotice} />
          </ForRole>
        </Panel>

        <Panel id="test" heading="Test and signing secret">
          <ForRole role="admin">
            <div className="stack">
              <div>
                <SendTest endpoint={e} onDone={setNotice} />
              </div>
              <div>
                <RotateSecret endpoint={e} onRotated={(value, overlap) => (setNotice(null), setSecret({ value, overlap }))} />
              </div>
            </div>
          </ForRole>
          {!canManage && <p className="muted">Only administrators with the admin role send test events, rotate the secret or change the endpoint.</p>}
        </Panel>
      </div>

      <DeliveryLog endpoint={e} onNotice={setNotice} />

      <ForRole role="admin">
        <EndpointDangerZone endpoint={e} onDone={setNotice} />
      </ForRole>
    </>
  )
}
