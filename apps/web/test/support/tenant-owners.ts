import { isFinalizedGrant, type AuthenticatedClient } from '@interledger/open-payments'
import type { Store } from '@gnap/domain/kernel'
import { createOwner } from '@gnap/domain/operator'

// Tenants and their owners for the tests of docs/protocol.md §2.21 *Owners* (over HTTP and in the browser): the ids,
// the settings that give the server an operator tenant and a service API, and owners of a tenant written into the
// server's database beside it, as an import would.

export const TENANT_A = '6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'
export const TENANT_B = '0e2d4c6b-8a9f-4e1d-9c3b-5a7f9e1d3c5b'
export const OPERATOR_TENANT = '438fa74a-fa7d-4317-9ced-dde32ece1787'

/** The server's settings for an operator tenant and the service API on `serviceApiPort`. */
export const tenantSettings = (serviceApiPort: number) => ({
  OPERATOR_TENANT_ID: OPERATOR_TENANT,
  ADMIN_API_SECRET: 'operator-admin-api-secret-0123456789abcdef',
  SERVICE_API_PORT: String(serviceApiPort),
})

/** Creates a tenant through the service API as the Rafiki backend does; throws unless it answers 204. */
export async function createTenantThroughServiceApi(serviceApiPort: number, body: { id: string; idpConsentUrl?: string; idpSecret?: string }) {
  const res = await fetch(`http://127.0.0.1:${serviceApiPort}/tenant`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ apiSecret: `api-secret-${body.id}`, ...body }),
  })
  if (res.status !== 204) throw new Error(`tenant ${body.id} not created: ${res.status}`)
}

/** Creates each owner (createOwner) and makes them an owner of their tenant. */
export async function addTenantOwners(sql: Store['sql'], owners: [Parameters<typeof createOwner>[1], string][]): Promise<void> {
  for (const [owner, tenantId] of owners) {
    const { id } = await createOwner(sql, owner)
    await sql.run(`UPDATE "Owner" SET "tenantId" = $1 WHERE "id" = $2`, [tenantId, id])
  }
}

/** A grant needing no approval at `authServer` on `identifier`, requested by `client`; its token's value. */
export async function incomingGrantAt(client: AuthenticatedClient, authServer: string, identifier: string): Promise<string> {
  const grant = await client.grant.request(
    { url: authServer },
    { access_token: { access: [{ type: 'incoming-payment', actions: ['read'], identifier }] } },
  )
  if (!isFinalizedGrant(grant) || !grant.access_token) throw new Error('expected an issued grant')
  return grant.access_token.value
}
