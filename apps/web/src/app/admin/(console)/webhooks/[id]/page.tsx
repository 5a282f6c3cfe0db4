import { pathParam } from '../../../_lib/format'
import { WebhookDetailView } from './webhook-detail'

export const metadata = { title: 'Webhook endpoint' }

/** One webhook endpoint and its delivery log; `?state=` filters the log (an unknown value shows every state). */
export default async function WebhookPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params
  return <WebhookDetailView id={pathParam(id)} />
}
