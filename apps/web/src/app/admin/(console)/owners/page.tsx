import { Suspense } from 'react'
import { Loading } from '../../_components/ui'
import { OwnersList } from './owners-list'

export const metadata = { title: 'Owners' }

export default function OwnersPage() {
  return (
    <Suspense fallback={<Loading>Loading owners…</Loading>}>
      <OwnersList />
    </Suspense>
  )
}
