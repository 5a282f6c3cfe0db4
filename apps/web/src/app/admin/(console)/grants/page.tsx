import { Suspense } from 'react'
import { Loading } from '../../_components/ui'
import { GrantsBrowser } from './grants-browser'

export const metadata = { title: 'Grants' }

export default function GrantsPage() {
  return (
    <Suspense fallback={<Loading>Loading grants…</Loading>}>
      <GrantsBrowser />
    </Suspense>
  )
}
