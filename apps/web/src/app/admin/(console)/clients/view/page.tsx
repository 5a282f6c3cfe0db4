import { Suspense } from 'react'
import { Loading } from '../../../_components/ui'
import { ClientDetailView } from './client-detail'

export const metadata = { title: 'Client' }

export default async function ClientPage({ searchParams }: { searchParams: Promise<{ address?: string | string[] }> }) {
  const { address } = await searchParams
  return (
    <Suspense fallback={<Loading>Loading the client…</Loading>}>
      <ClientDetailView address={typeof address === 'string' ? address.trim() : ''} />
    </Suspense>
  )
}
