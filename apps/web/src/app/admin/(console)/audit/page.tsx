import { listPage } from '../../_components/list-page'
import { AuditLog } from './audit-log'

export const metadata = { title: 'Audit log' }

export default listPage(AuditLog, 'Loading the audit log…')
