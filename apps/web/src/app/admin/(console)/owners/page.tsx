import { listPage } from '../../_components/list-page'
import { OwnersList } from './owners-list'

export const metadata = { title: 'Owners' }

export default listPage(OwnersList, 'Loading owners…')
