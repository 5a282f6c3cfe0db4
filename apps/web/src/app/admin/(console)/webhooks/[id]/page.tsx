import { pathParam } from '../../../_lib/format'
import { WebhookDetailView } from './webhook-detail'

export const metadata = { title: 'Webhook endpoint' }

const STATES = ['pending', 'delivered', 'failed'] as const

/** One webhook endpoint and its delivery log; `?state=` filters the log (an unknown value shows every state). */
export default async function WebhookPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>
  searchParams: Promise<{ state?: string | string[] }>
}) {
  const { id } = await params
  const { state } = await searchParams
  const filter = STATES.find((s) => s === state) ?? null
  return <WebhookDetailView id={pathParam(id)} state={filter} />
}
