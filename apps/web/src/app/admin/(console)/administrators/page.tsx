import { Suspense } from 'react'
import { Loading } from '../../_components/ui'
import { AdministratorsView } from './administrators-view'

export const metadata = { title: 'Administrators' }

export default function AdministratorsPage() {
  return (
    <Suspense fallback={<Loading>Loading administrators…</Loading>}>
      <AdministratorsView />
    </Suspense>
  )
}
