'use client'

import { useQuery } from '@tanstack/react-query'
import type { inferRouterOutputs } from '@trpc/server'
import type { AppRouter } from '@gnap/api'
import { useTRPC } from './trpc'

// Tenants in the console (docs/protocol.md §2.21): a server without any (no OPERATOR_TENANT_ID, no service API call)
// shows no tenant anywhere, so a single-tenant console looks as it did before tenants.

export type TenantRow = inferRouterOutputs<AppRouter>['tenants']['list']['items'][number]

/** The tenants, for the pages that name or filter by them; `hasTenants` is false while loading and without any. */
export function useTenants() {
  const trpc = useTRPC()
  const tenants = useQuery(trpc.tenants.list.queryOptions())
  const items = tenants.data?.items ?? []
  return { query: tenants, items, hasTenants: items.length > 0 }
}

/** How the console names a tenant: "Operator tenant" for OPERATOR_TENANT_ID's, else its id. */
export const tenantLabel = (id: string, tenants: readonly TenantRow[]): string =>
  tenants.find((t) => t.id === id)?.operator ? 'Operator tenant' : id

/** A tenant's name in a table cell or a fact: the operator tenant in words, another by its id. */
export function TenantName({ id, tenants }: { id: string | null; tenants: readonly TenantRow[] }) {
  // A grant of `POST /` on a server with tenants but no OPERATOR_TENANT_ID: the implicit tenant of before tenants.
  if (id === null) return <span className="muted">Default (POST /)</span>
  const label = tenantLabel(id, tenants)
  return label === id ? <code>{id}</code> : <>{label}</>
}
