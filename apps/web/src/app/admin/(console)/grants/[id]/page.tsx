import { pathParam } from '../../../_lib/format'
import { GrantDetailView } from './grant-detail'

export const metadata = { title: 'Grant' }

export default async function GrantPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params
  return <GrantDetailView id={pathParam(id)} />
}
