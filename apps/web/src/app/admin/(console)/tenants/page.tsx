import { TenantsView } from './tenants-view'

export const metadata = { title: 'Tenants' }

/** The tenants the service API made (docs/protocol.md §2.21): every role reads them. */
export default function TenantsPage() {
  return <TenantsView />
}
