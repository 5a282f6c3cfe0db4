import { listPage } from '../../_components/list-page'
import { ClientsList } from './clients-list'

export const metadata = { title: 'Clients' }

export default listPage(ClientsList, 'Loading clients…')
