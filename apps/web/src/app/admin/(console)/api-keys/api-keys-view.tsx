'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { FormEvent } from 'react'
import type { inferRouterOutputs } from '@trpc/server'
import type { AppRouter } from '@gnap/api'
import type { AdminRole } from '@gnap/domain/operator'
import { CreateApiKeyInputSchema } from '@gnap/domain/console-inputs'
import { useTRPC } from '../../_lib/trpc'
import { errorMessage } from '../../_lib/errors'
import { Time } from '../../_components/ui'
import { useShownOnce } from '../../_lib/shown-once'
import type { Columns } from '../../_components/data-table'
import { createdByColumn } from '../../_components/columns'
import { countOf, ListTable } from '../../_components/list-table'
import { MutationForm, SchemaField, useSchemaForm } from '../../_components/form-field'
import { ConfirmedAction, useConfirmation } from '../../_components/confirm-dialog'
import { Notice } from '../../_components/notice'
import { ShownOnceSecret } from '../../_components/shown-once-secret'
import { TenantName, tenantLabel, useTenants, type TenantRow } from '../../_lib/tenants'

const ROLE_TEXT: Record<AdminRole, string> = {
  viewer: 'Viewer (reads)',
  operator: 'Operator (also revokes)',
  admin: 'Admin (also manages owners)',
}

type ApiKeyRow = inferRouterOutputs<AppRouter>['apiKeys']['list']['items'][number]

const STATUS_LABEL = { active: 'Active', expired: 'Expired', revoked: 'Revoked' } as const
/** A key whose creator is disabled or deleted is refused (docs/security.md, "API keys answer to their creator"). */
const CREATOR_STATUS_LABEL = { disabled: 'now disabled', deleted: 'now deleted' } as const

/** The API keys page: create a key (shown once), the list of keys, revoke with a confirmation. */
export function ApiKeysView() {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const keys = useQuery(trpc.apiKeys.list.queryOptions())
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() })
  const { created, notice, setNotice, onCreated, done } = useShownOnce<{ secret: string; name: string }>(refresh)
  const tenants = useTenants().items

  return (
    <>
      <div className="page-head">
        <div>
          <h1>API keys</h1>
          <p>
            Keys let your own back ends call this server without a person&apos;s password: the same operations as this console, with the key&apos;s
            role, sent as <code>Authorization: Bearer &lt;key&gt;</code>. The REST form is described at{' '}
            <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.
          </p>
        </div>
      </div>
      {created ? (
        <NewKey secret={created.secret} name={created.name} onDone={() => done(`The key “${created.name}” is ready to use.`)} />
      ) : (
        <CreateKeyForm onCreated={onCreated} tenants={tenants} />
      )}
      <Notice text={notice} />

      <ListTable
        section={{ id: 'keys-heading', heading: 'Keys' }}
        query={keys}
        loading="Loading API keys…"
        what="The API keys"
        empty={{ title: 'No API keys yet.', text: 'Create one above for each back end, with the lowest role it needs.' }}
        columns={keyColumns((text) => (setNotice(text), void refresh()), tenants)}
        rowKey={(k) => k.id}
        caption={(items) => `${countOf(items.length, 'key')}, newest first`}
      />
    </>
  )
}

/** The keys' columns; the last one revokes, and tells the page what happened. */
function keyColumns(onRevoked: (text: string) => void, tenants: readonly TenantRow[]): Columns<ApiKeyRow> {
  return [
    { id: 'name', header: 'Name', cell: ({ row }) => row.original.name, meta: { sticky: true } },
    { id: 'prefix', header: 'Key starts with', cell: ({ row }) => <code>{row.original.prefix}</code> },
    {
      id: 'role',
      header: 'Role',
      cell: ({ row: { original: k } }) => (
        <>
          {k.role}
          {k.actsAs && k.actsAs !== k.role && <span className="cell-sub">acts as {k.actsAs}, its creator’s role</span>}
        </>
      ),
    },
    {
      id: 'status',
      header: 'Status',
      cell: ({ row: { original: k } }) => (
        <>
          <span className={`badge ${k.status}`}>{STATUS_LABEL[k.status]}</span>
          {k.status === 'active' && k.creatorStatus !== 'active' && <span className="cell-sub">refused: its creator is {k.creatorStatus}</span>}
          {k.revokedAt && (
            <span className="cell-sub">
              <Time value={k.revokedAt} />
            </span>
          )}
        </>
      ),
    },
    // Only once the server has tenants (docs/protocol.md §2.21); a key bound to none reaches every tenant.
    ...(tenants.length > 0
      ? [
          {
            id: 'tenant',
            header: 'Tenant',
            cell: ({ row: { original: k } }) => (k.tenantId === null ? 'Every tenant' : <TenantName id={k.tenantId} tenants={tenants} />),
          } satisfies Columns<ApiKeyRow>[number],
        ]
      : []),
    createdByColumn<ApiKeyRow>('created', 'Created', (k) => (k.creatorStatus === 'active' ? null : CREATOR_STATUS_LABEL[k.creatorStatus])),
    { id: 'expires', header: 'Expires', cell: ({ row }) => <Time value={row.original.expiresAt} empty="Never" /> },
    { id: 'used', header: 'Last used', cell: ({ row }) => <Time value={row.original.lastUsedAt} empty="Not used yet" /> },
    {
      id: 'actions',
      header: 'Actions',
      cell: ({ row: { original: k } }) => k.status !== 'revoked' && <RevokeKey id={k.id} name={k.name} onRevoked={onRevoked} />,
    },
  ]
}

const CREATE_KEY_TEXTS = { heading: 'New API key', failed: 'The key was not created.', submit: 'Create key', busy: 'Creating…' }

const NAME_HINT = (
  <>
    Which back end uses it, such as <code>billing-sync</code>. The audit log names its actions “api key "billing-sync"”.
  </>
)

function CreateKeyForm({ onCreated, tenants }: { onCreated(c: { secret: string; name: string }): void; tenants: readonly TenantRow[] }) {
  const trpc = useTRPC()
  const create = useMutation(trpc.apiKeys.create.mutationOptions({ onSuccess: (r) => onCreated({ secret: r.key, name: r.apiKey.name }) }))
  const fields = useSchemaForm(CreateApiKeyInputSchema.shape)

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const values = fields.read(event.currentTarget, ['name'])
    if (!values) return
    const f = new FormData(event.currentTarget)
    const day = String(f.get('expires') ?? '')
    // Valid through the chosen day (UTC): it stops working when the next day begins.
    const expiresAt = /^\d{4}-\d\d-\d\d$/.test(day) ? new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000) : null
    create.mutate({ name: values.name, role: String(f.get('role')) as AdminRole, expiresAt, tenantId: String(f.get('tenant') ?? '') || null })
  }

  return (
    <MutationForm headingId="create-key-heading" texts={CREATE_KEY_TEXTS} mutation={create} onSubmit={submit}>
      <SchemaField form={fields} name="name" id="key-name" label="Name" required maxLength={64} autoComplete="off" hint={NAME_HINT} />
      <div className="field">
        <label htmlFor="key-role">Role</label>
        <select id="key-role" name="role" defaultValue="viewer" aria-describedby="key-role-hint">
          {(Object.keys(ROLE_TEXT) as AdminRole[]).map((r) => (
            <option key={r} value={r}>
              {ROLE_TEXT[r]}
            </option>
          ))}
        </select>
        <span className="hint" id="key-role-hint">
          A viewer reads grants, tokens, clients, owners and the audit log; an operator also revokes grants and tokens; an admin also manages owners.
          Give the lowest role the back end needs. No key can manage API keys or sign in to this console.
        </span>
      </div>
      {tenants.some((t) => !t.deletedAt) && <TenantField tenants={tenants} />}
      <div className="field">
        <label htmlFor="key-expires">Valid until (optional)</label>
        <input id="key-expires" name="expires" type="date" aria-describedby="key-expires-hint" />
        <span className="hint" id="key-expires-hint">
          The key works through this day (UTC) and stops at midnight. Leave empty for a key that works until you revoke it.
        </span>
      </div>
    </MutationForm>
  )
}

/** Which tenant a new key is bound to: every tenant by default, or one live tenant (docs/protocol.md §2.21). */
function TenantField({ tenants }: { tenants: readonly TenantRow[] }) {
  return (
    <div className="field">
      <label htmlFor="key-tenant">Tenant</label>
      <select id="key-tenant" name="tenant" defaultValue="" aria-describedby="key-tenant-hint">
        <option value="">Every tenant</option>
        {tenants
          .filter((t) => !t.deletedAt)
          .map((t) => (
            <option key={t.id} value={t.id}>
              {t.operator ? `${tenantLabel(t.id, tenants)} (${t.id})` : t.id}
            </option>
          ))}
      </select>
      <span className="hint" id="key-tenant-hint">
        A key bound to a tenant sees and changes only that tenant’s grants, tokens and clients, and cannot block clients (a block reaches every
        tenant).
      </span>
    </div>
  )
}

/** The new key, once: copy it now, it cannot be shown again. */
function NewKey({ secret: value, name, onDone }: { secret: string; name: string; onDone(): void }) {
  return (
    <ShownOnceSecret
      id="new-key"
      heading={`The key “${name}”`}
      warning="Copy the key now: this is the only time it is shown."
      explanation="The server keeps only a fingerprint of it. Store it where your back end reads its secrets; if it is lost, revoke it and create another."
      label="API key"
      value={value}
      copyLabel="Copy key"
      doneLabel="I have stored the key"
      copyFailed="The browser did not allow copying: select the key and copy it."
      onDone={onDone}
    />
  )
}

function RevokeKey({ id, name, onRevoked }: { id: string; name: string; onRevoked(text: string): void }) {
  const trpc = useTRPC()
  const confirm = useConfirmation()
  const revoke = useMutation(
    trpc.apiKeys.revoke.mutationOptions({
      onSuccess: () => {
        confirm.close()
        onRevoked(`The key “${name}” is revoked: its next call is refused.`)
      },
      onError: (e) => confirm.fail(errorMessage(e, { notFound: 'This key no longer exists.' })),
    }),
  )
  return (
    <ConfirmedAction
      {...confirm.props}
      label="Revoke"
      title={`Revoke the key “${name}”?`}
      busyLabel="Revoking…"
      busy={revoke.isPending}
      onConfirm={() => revoke.mutate({ id })}
    >
      <p>The back end using it is refused from its next call, on every instance. This cannot be undone: create a new key if it needs access again.</p>
    </ConfirmedAction>
  )
}
