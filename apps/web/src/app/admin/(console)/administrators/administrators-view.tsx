'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { inferRouterOutputs } from '@trpc/server'
import type { AppRouter } from '@gnap/api'
import Link from 'next/link'
import { useState, type FormEvent } from 'react'
import { ADMIN_ROLES, type AdminRole } from '@gnap/domain/roles'
import { AdminEmailSchema } from '@gnap/domain/console-inputs'
import { useTRPC } from '../../_lib/trpc'
import { errorMessage } from '../../_lib/errors'
import { ForRole, useSignedInAdminId } from '../../_lib/role'
import { Empty, ErrorMessage, Time } from '../../_components/ui'
import { OneTimeLink } from '../../_components/one-time-link'
import { DataTable, type Columns } from '../../_components/data-table'
import { QueryBoundary } from '../../_components/query-boundary'
import { EMAIL_INPUT, FormActions, SchemaField, useSchemaForm } from '../../_components/form-field'
import { AdminStatusBadge, ROLE_TEXT } from './admin-words'

type AdminRow = inferRouterOutputs<AppRouter>['admins']['list'][number]

/** The columns of the administrators table; `me` is marked "You". */
function adminColumns(me: string | null | undefined): Columns<AdminRow> {
  return [
    {
      id: 'email',
      header: 'Email',
      cell: ({ row: { original: a } }) => (
        <>
          <Link href={`/admin/administrators/${a.id}`}>{a.email}</Link>
          {a.id === me && <span className="cell-sub">You</span>}
        </>
      ),
    },
    { id: 'role', header: 'Role', cell: ({ row }) => ROLE_TEXT[row.original.role].label },
    { id: 'status', header: 'Status', cell: ({ row }) => <AdminStatusBadge status={row.original.status} /> },
    { id: 'last', header: 'Last sign-in', cell: ({ row }) => <Time value={row.original.lastSignInAt} empty="Never" /> },
    { id: 'added', header: 'Added', cell: ({ row }) => <Time value={row.original.createdAt} /> },
  ]
}

/** Every administrator, and for an admin the invitation form. */
export function AdministratorsView() {
  const trpc = useTRPC()
  const me = useSignedInAdminId()
  const admins = useQuery(trpc.admins.list.queryOptions())
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Administrators</h1>
          <p>The people who run this server from the console, each with a role: viewers read, operators also revoke, admins also manage people.</p>
        </div>
      </div>
      <ForRole role="admin">
        <InviteForm />
      </ForRole>
      <section className="panel" aria-labelledby="admins-heading">
        <h2 id="admins-heading">Everyone with access</h2>
        <QueryBoundary
          query={admins}
          loading="Loading administrators…"
          what="The administrators"
          failedTitle="The administrators could not be shown."
          isEmpty={(data) => data.length === 0}
          empty={<Empty title="No administrators." />}
        >
          {(data) => <DataTable columns={adminColumns(me)} rows={data} rowKey={(a) => a.id} caption="Administrators by email" captionHidden />}
        </QueryBoundary>
      </section>
    </>
  )
}

/** The role field of the invitation and change-role forms: each role with what it may do. */
export function RoleField({ id, label, defaultValue }: { id: string; label: string; defaultValue: AdminRole }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} name="role" defaultValue={defaultValue}>
        {ADMIN_ROLES.map((r) => (
          <option key={r} value={r}>
            {ROLE_TEXT[r].label}: {ROLE_TEXT[r].may}
          </option>
        ))}
      </select>
    </div>
  )
}

const INVITE_FIELDS = { email: AdminEmailSchema }

/** Email and role; on success the one-time link, shown once, to pass on. */
function InviteForm() {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const [formKey, setFormKey] = useState(0)
  const [invited, setInvited] = useState<{ email: string; role: AdminRole; url: string; expiresAt: Date } | null>(null)
  const invite = useMutation(
    trpc.admins.invite.mutationOptions({
      onSuccess: async (r, input) => {
        setInvited({ email: r.email, role: input.role, url: r.url, expiresAt: r.expiresAt })
        setFormKey((k) => k + 1)
        await queryClient.invalidateQueries()
      },
    }),
  )

  const fields = useSchemaForm(INVITE_FIELDS)

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const values = fields.read(event.currentTarget)
    if (!values) return
    setInvited(null)
    invite.mutate({ ...values, role: String(new FormData(event.currentTarget).get('role') ?? 'viewer') as AdminRole })
  }
  return (
    <section className="panel" aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite an administrator</h2>
      <p className="hint">
        They get no password here: you get a link that works once, for three days. Pass it on yourself; with it they choose their password and can
        then sign in with the role you chose.
      </p>
      <form key={formKey} onSubmit={submit} aria-labelledby="invite-heading">
        <SchemaField form={fields} name="email" id="invite-email" label="Email" {...EMAIL_INPUT} />
        <RoleField id="invite-role" label="Role" defaultValue="viewer" />
        <FormActions label="Invite" busyLabel="Inviting…" busy={invite.isPending} />
      </form>
      {invite.isError && <ErrorMessage title="Nobody was invited.">{errorMessage(invite.error)}</ErrorMessage>}
      {invited && (
        <OneTimeLink
          id="invitation"
          heading={`Invitation for ${invited.email}`}
          intro={
            <p>
              {invited.email} was invited as {ROLE_TEXT[invited.role].label.toLowerCase()}. Their link works until <Time value={invited.expiresAt} />.
            </p>
          }
          label="Invitation link"
          url={invited.url}
          onDone={() => setInvited(null)}
        />
      )}
    </section>
  )
}
