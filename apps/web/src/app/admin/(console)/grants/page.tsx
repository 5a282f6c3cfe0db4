import { listPage } from '../../_components/list-page'
import { GrantsBrowser } from './grants-browser'

export const metadata = { title: 'Grants' }

export default listPage(GrantsBrowser, 'Loading grants…')
