import { Suspense } from 'react'
import { Loading } from '../../_components/ui'
import { ClientsList } from './clients-list'

export const metadata = { title: 'Clients' }

export default function ClientsPage() {
  return (
    <Suspense fallback={<Loading>Loading clients…</Loading>}>
      <ClientsList />
    </Suspense>
  )
}
