'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import Link from 'next/link'
import { useState, type FormEvent } from 'react'
import { CreateWebhookEndpointInputSchema } from '@gnap/domain/console-inputs'
import { useTRPC } from '../../_lib/trpc'
import { useCan } from '../../_lib/role'
import { Notice } from '../../_components/notice'
import { Time } from '../../_components/ui'
import { useShownOnce } from '../../_lib/shown-once'
import type { Columns } from '../../_components/data-table'
import { createdByColumn } from '../../_components/columns'
import { countOf, ListTable } from '../../_components/list-table'
import { MutationForm, SchemaField, useSchemaForm } from '../../_components/form-field'
import { checkedEventTypes, EndpointStatusBadge, EventTypeFields, EventTypeTags, NewSecret, webhookHref, type WebhookEndpoint } from './webhook-parts'

/** The webhook endpoints with their delivery counts; for an admin, the form that adds one and its secret, shown once. */
export function WebhooksView({ deleted, withTenant }: { deleted: boolean; withTenant: boolean }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const canManage = useCan('admin')
  const endpoints = useQuery(trpc.webhooks.list.queryOptions())
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() })
  const deletedNotice = deleted ? 'The endpoint was deleted: it receives nothing more.' : null
  const { created, notice, onCreated, done } = useShownOnce<{ id: string; url: string; secret: string }>(refresh, deletedNotice)

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Webhooks</h1>
          <p>
            Endpoints of your own systems that this server tells, within seconds, when a grant is approved, denied, issued, revoked or expires, when a
            token is rotated or revoked, and when a client is blocked. Each delivery is signed as the Standard Webhooks specification says, and
            retried for about a day until the endpoint answers with a 2xx status.
          </p>
        </div>
      </div>
      {canManage &&
        (created ? (
          <NewSecret
            heading="Endpoint added"
            url={created.url}
            secret={created.secret}
            onDone={() => done(`The endpoint ${created.url} is ready: new events of its types go to it from now on.`)}
          />
        ) : (
          <CreateEndpointForm onCreated={onCreated} withTenant={withTenant} />
        ))}
      <Notice text={notice} />
      {!canManage && (
        <div className="message info">
          <p>You can read the endpoints and their delivery logs. Only administrators with the admin role add or change endpoints.</p>
        </div>
      )}

      <ListTable
        section={{ id: 'endpoints-heading', heading: 'Endpoints' }}
        query={endpoints}
        loading="Loading webhook endpoints…"
        what="The webhook endpoints"
        empty={{
          title: 'No webhook endpoints yet.',
          text: canManage ? 'Add one above to be told of grant and token changes.' : 'An administrator adds them.',
        }}
        className="endpoints-table"
        columns={endpoints.data?.items.some((e) => e.tenantId !== null) ? [...columns.slice(0, 2), tenantColumn, ...columns.slice(2)] : columns}
        rowKey={(e) => e.id}
        caption={(items) => countOf(items.length, 'endpoint')}
      />
    </>
  )
}

const columns: Columns<WebhookEndpoint> = [
  {
    id: 'endpoint',
    header: 'Endpoint',
    cell: ({ row: { original: e } }) => (
      <>
        <Link href={webhookHref(e.id)} className="mono">
          {e.url}
        </Link>
        {e.description && <span className="cell-note">{e.description}</span>}
      </>
    ),
  },
  { id: 'types', header: 'Event types', cell: ({ row }) => <EventTypeTags types={row.original.eventTypes} /> },
  { id: 'status', header: 'Status', cell: ({ row }) => <EndpointStatusBadge enabled={row.original.enabled} /> },
  { id: 'pending', header: 'Pending', cell: ({ row }) => row.original.counts.pending },
  {
    id: 'failed',
    header: 'Failed',
    cell: ({ row: { original: e } }) => (e.counts.failed > 0 ? <strong className="error-text">{e.counts.failed}</strong> : e.counts.failed),
  },
  createdByColumn('added', 'Added'),
]

/** Shown once an endpoint is bound to a tenant: a server without tenants lists as before. */
const tenantColumn: Columns<WebhookEndpoint>[number] = {
  id: 'tenant',
  header: 'Tenant',
  cell: ({ row }) => (row.original.tenantId ? <code>{row.original.tenantId}</code> : 'Every tenant'),
}

const CREATE_ENDPOINT_TEXTS = { heading: 'Add an endpoint', failed: 'The endpoint was not added.', submit: 'Add endpoint', busy: 'Adding…' }

/** `withTenant`: the server has tenants, so the form offers to bind the endpoint to one. */
function CreateEndpointForm({ onCreated, withTenant }: { onCreated(c: { id: string; url: string; secret: string }): void; withTenant: boolean }) {
  const trpc = useTRPC()
  const [missingTypes, setMissingTypes] = useState(0)
  const create = useMutation(
    // gcTime 0: the answer (it holds the secret) leaves the query client's cache as soon as this form is gone.
    trpc.webhooks.create.mutationOptions({ gcTime: 0, onSuccess: (r) => onCreated({ id: r.endpoint.id, url: r.endpoint.url, secret: r.secret }) }),
  )
  const fields = useSchemaForm(CreateWebhookEndpointInputSchema.shape)

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const values = fields.read(event.currentTarget, ['url', 'description'])
    if (!values) return
    const eventTypes = checkedEventTypes(new FormData(event.currentTarget))
    if (eventTypes.length === 0) {
      setMissingTypes((n) => n + 1)
      return
    }
    const tenantId = String(new FormData(event.currentTarget).get('tenantId') ?? '').trim()
    create.mutate({
      url: values.url,
      ...(values.description ? { description: values.description } : {}),
      eventTypes,
      ...(tenantId ? { tenantId } : {}),
    })
  }

  return (
    <MutationForm headingId="create-endpoint-heading" texts={CREATE_ENDPOINT_TEXTS} mutation={create} onSubmit={submit}>
      <SchemaField
        form={fields}
        name="url"
        id="endpoint-url"
        label="URL"
        type="url"
        required
        maxLength={2048}
        placeholder="https://hooks.example.com/gnap"
        spellCheck={false}
        autoComplete="off"
        hint={
          <>
            Where your receiver listens for POST requests; https in production. Private and loopback addresses are refused unless the server&apos;s
            WEBHOOK_ALLOWED_NETWORKS setting lists them.
          </>
        }
      />
      <SchemaField
        form={fields}
        name="description"
        id="endpoint-description"
        label="Description (optional)"
        maxLength={200}
        autoComplete="off"
        hint="For your colleagues: which system this is, such as “billing: stop subscriptions”."
      />
      {withTenant && (
        <div className="field">
          <label htmlFor="endpoint-tenant">Tenant (optional)</label>
          <input id="endpoint-tenant" name="tenantId" maxLength={64} autoComplete="off" spellCheck={false} aria-describedby="endpoint-tenant-hint" />
          <span className="hint" id="endpoint-tenant-hint">
            A tenant id: the endpoint then receives that tenant&apos;s events only. Empty: every tenant&apos;s.
          </span>
        </div>
      )}
      <EventTypeFields idPrefix="create" checked={[]} missing={missingTypes} onPicked={() => setMissingTypes(0)} />
    </MutationForm>
  )
}
