import { Suspense, type ComponentType } from 'react'
import { Loading } from './ui'

/**
 * A list page's default export: its view reads the address's search params (filters, cursor), so Next.js renders
 * it under a Suspense boundary, which says what is loading meanwhile.
 */
export function listPage(View: ComponentType, loading: string) {
  return function ListPage() {
    return (
      <Suspense fallback={<Loading>{loading}</Loading>}>
        <View />
      </Suspense>
    )
  }
}
