import { Loading } from '../_components/ui'

export default function ConsoleLoading() {
  return <Loading>Loading…</Loading>
}
