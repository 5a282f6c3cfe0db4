import { listPage } from '../../_components/list-page'
import { AdministratorsView } from './administrators-view'

export const metadata = { title: 'Administrators' }

export default listPage(AdministratorsView, 'Loading administrators…')
