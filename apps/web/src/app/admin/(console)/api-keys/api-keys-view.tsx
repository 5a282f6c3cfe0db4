'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import type { AdminRole } from '@gnap/domain/operator'
import { useFocusOnFailure } from '../../_lib/focus-on-failure'
import { useTRPC } from '../../_lib/trpc'
import { errorMessage } from '../../_lib/errors'
import { Empty, ErrorMessage, Loading, Time } from '../../_components/ui'
import { ConfirmedAction, useConfirmation } from '../../_components/confirm-dialog'
import { Notice } from '../../_components/notice'
import { ShownOnceSecret } from '../../_components/shown-once-secret'

const ROLE_TEXT: Record<AdminRole, string> = {
  viewer: 'Viewer (reads)',
  operator: 'Operator (also revokes)',
  admin: 'Admin (also manages owners)',
}

const STATUS_LABEL = { active: 'Active', expired: 'Expired', revoked: 'Revoked' } as const

/** The API keys page: create a key (shown once), the list of keys, revoke with a confirmation. */
export function ApiKeysView() {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const keys = useQuery(trpc.apiKeys.list.queryOptions())
  const [created, setCreated] = useState<{ secret: string; name: string } | null>(null)
  const [notice, setNotice] = useState<string | null>(null)
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() })

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
        <NewKey
          secret={created.secret}
          name={created.name}
          onDone={() => {
            setCreated(null)
            setNotice(`The key “${created.name}” is ready to use.`)
          }}
        />
      ) : (
        <CreateKeyForm
          onCreated={(c) => {
            setNotice(null)
            setCreated(c)
            void refresh()
          }}
        />
      )}
      <Notice text={notice} />

      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading">Keys</h2>
        {keys.isPending && <Loading>Loading API keys…</Loading>}
        {keys.isError && (
          <ErrorMessage
            title="The API keys could not be loaded."
            action={
              <button type="button" className="button secondary" onClick={() => void keys.refetch()}>
                Try again
              </button>
            }
          >
            {errorMessage(keys.error)}
          </ErrorMessage>
        )}
        {keys.data && keys.data.items.length === 0 && (
          <div className="panel">
            <Empty title="No API keys yet.">
              <p>Create one above for each back end, with the lowest role it needs.</p>
            </Empty>
          </div>
        )}
        {keys.data && keys.data.items.length > 0 && (
          <div className="table-wrap">
            <table>
              <caption>
                {keys.data.items.length} key{keys.data.items.length === 1 ? '' : 's'}, newest first
              </caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Key starts with</th>
                  <th scope="col">Role</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {keys.data.items.map((k) => (
                  <tr key={k.id}>
                    <td>{k.name}</td>
                    <td>
                      <code>{k.prefix}</code>
                    </td>
                    <td>{k.role}</td>
                    <td>
                      <span className={`badge ${k.status}`}>{STATUS_LABEL[k.status]}</span>
                      {k.revokedAt && (
                        <span className="cell-sub">
                          <Time value={k.revokedAt} />
                        </span>
                      )}
                    </td>
                    <td>
                      <Time value={k.createdAt} />
                      <span className="cell-sub">by {k.createdBy}</span>
                    </td>
                    <td>
                      <Time value={k.expiresAt} empty="Never" />
                    </td>
                    <td>
                      <Time value={k.lastUsedAt} empty="Not used yet" />
                    </td>
                    <td>{k.status !== 'revoked' && <RevokeKey id={k.id} name={k.name} onRevoked={(text) => (setNotice(text), void refresh())} />}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  )
}

function CreateKeyForm({ onCreated }: { onCreated(c: { secret: string; name: string }): void }) {
  const trpc = useTRPC()
  const create = useMutation(trpc.apiKeys.create.mutationOptions({ onSuccess: (r) => onCreated({ secret: r.key, name: r.apiKey.name }) }))
  const errorRef = useFocusOnFailure(create)

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const f = new FormData(event.currentTarget)
    const day = String(f.get('expires') ?? '')
    // Valid through the chosen day (UTC): it stops working when the next day begins.
    const expiresAt = /^\d{4}-\d\d-\d\d$/.test(day) ? new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000) : null
    create.mutate({ name: String(f.get('name') ?? '').trim(), role: String(f.get('role')) as AdminRole, expiresAt })
  }

  return (
    <form className="panel" onSubmit={submit} aria-labelledby="create-key-heading">
      <h2 id="create-key-heading">New API key</h2>
      {create.isError && (
        <div ref={errorRef} tabIndex={-1}>
          <ErrorMessage title="The key was not created.">{errorMessage(create.error)}</ErrorMessage>
        </div>
      )}
      <div className="field">
        <label htmlFor="key-name">Name</label>
        <input id="key-name" name="name" required maxLength={64} autoComplete="off" aria-describedby="key-name-hint" />
        <span className="hint" id="key-name-hint">
          Which back end uses it, such as <code>billing-sync</code>. The audit log names its actions “api key "billing-sync"”.
        </span>
      </div>
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
      <div className="field">
        <label htmlFor="key-expires">Valid until (optional)</label>
        <input id="key-expires" name="expires" type="date" aria-describedby="key-expires-hint" />
        <span className="hint" id="key-expires-hint">
          The key works through this day (UTC) and stops at midnight. Leave empty for a key that works until you revoke it.
        </span>
      </div>
      <div className="filter-actions">
        <button type="submit" className="button" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create key'}
        </button>
      </div>
    </form>
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
