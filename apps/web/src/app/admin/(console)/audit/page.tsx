import { Suspense } from 'react'
import { Loading } from '../../_components/ui'
import { AuditLog } from './audit-log'

export const metadata = { title: 'Audit log' }

export default function AuditPage() {
  return (
    <Suspense fallback={<Loading>Loading the audit log…</Loading>}>
      <AuditLog />
    </Suspense>
  )
}
