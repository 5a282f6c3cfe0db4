'use client'

import Link from 'next/link'
import type { Columns } from '../../_components/data-table'
import { countOf, ListTable } from '../../_components/list-table'
import { Time } from '../../_components/ui'
import { tenantLabel, useTenants, type TenantRow } from '../../_lib/tenants'

// The tenants page (docs/protocol.md §2.21): read-only, as the Rafiki backend creates, changes and deletes tenants
// through the service API. Never a secret: neither the identity provider's nor the API secret reaches the console.

function tenantColumns(tenants: readonly TenantRow[]): Columns<TenantRow> {
  return [
    {
      id: 'tenant',
      header: 'Tenant',
      cell: ({ row: { original: t } }) => (
        <>
          {t.operator ? 'Operator tenant' : <code>{t.id}</code>}
          {t.operator && (
            <span className="cell-sub">
              <code>{t.id}</code>, also the grants of <code>POST /</code>
            </span>
          )}
        </>
      ),
      meta: { sticky: true },
    },
    {
      id: 'idp',
      header: 'Consent',
      cell: ({ row: { original: t } }) =>
        t.idpConsentUrl ? (
          <>
            Its identity provider
            <span className="cell-sub">{t.idpConsentUrl}</span>
          </>
        ) : (
          'Built-in consent screen'
        ),
    },
    { id: 'created', header: 'Created', cell: ({ row }) => <Time value={row.original.createdAt} /> },
    {
      id: 'state',
      header: 'State',
      cell: ({ row: { original: t } }) =>
        t.deletedAt ? (
          <>
            <span className="badge revoked">Deleted</span>
            <span className="cell-sub">
              <Time value={t.deletedAt} />
            </span>
          </>
        ) : (
          <span className="badge active">Live</span>
        ),
    },
    {
      id: 'grants',
      header: 'Grants',
      cell: ({ row: { original: t } }) => (
        <Link href={`/admin/grants?tenant=${encodeURIComponent(t.id)}`} aria-label={`${countOf(t.grants, 'grant')} of ${tenantLabel(t.id, tenants)}`}>
          {t.grants}
        </Link>
      ),
    },
  ]
}

/** The tenants, oldest first. */
export function TenantsView() {
  const tenants = useTenants()
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Tenants</h1>
          <p>
            The tenants the Rafiki backend created through the service API, each with its own grant endpoint <code>POST /&#123;tenant id&#125;</code>{' '}
            and where its owners consent. They are changed and deleted through the service API only.
          </p>
        </div>
      </div>
      <ListTable
        query={tenants.query}
        loading="Loading tenants…"
        what="The tenants"
        empty={{
          title: 'No tenants.',
          text: 'This server serves one tenant: every grant is requested at POST /. Tenants appear here once OPERATOR_TENANT_ID is set or the service API creates one.',
        }}
        columns={tenantColumns(tenants.items)}
        rowKey={(t) => t.id}
        caption={(items) => `${countOf(items.length, 'tenant')}, oldest first`}
      />
    </>
  )
}
