import { pathParam } from '../../../_lib/format'
import { OwnerDetailView } from './owner-detail'

export const metadata = { title: 'Owner' }

export default async function OwnerPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<{ created?: string }> }) {
  const { id } = await params
  const { created } = await searchParams
  return <OwnerDetailView id={pathParam(id)} created={created === '1'} />
}
