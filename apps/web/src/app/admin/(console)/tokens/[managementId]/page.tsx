import { pathParam } from '../../../_lib/format'
import { TokenDetailView } from './token-detail'

export const metadata = { title: 'Access token' }

export default async function TokenPage({ params }: { params: Promise<{ managementId: string }> }) {
  const { managementId } = await params
  return <TokenDetailView managementId={pathParam(managementId)} />
}
