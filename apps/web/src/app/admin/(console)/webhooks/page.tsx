import { hasTenants } from '@gnap/domain/operator'
import { getDeps } from '../../../../server/process/deps'
import { WebhooksView } from './webhooks-view'

export const metadata = { title: 'Webhooks' }

/** Webhook endpoints (docs/webhooks.md): every role reads them; `admin` adds and changes them. */
export default async function WebhooksPage({ searchParams }: { searchParams: Promise<{ deleted?: string }> }) {
  const { deleted } = await searchParams
  return <WebhooksView deleted={deleted === '1'} withTenant={await hasTenants(await getDeps())} />
}
