import Link from 'next/link'
import { roleAllows } from '@gnap/domain/roles'
import { hasTenants } from '@gnap/domain/operator'
import { getDeps } from '../../../../../server/process/deps'
import { currentAdminSession } from '../../../../../server/edge/admin-session'
import { CreateOwnerForm } from './create-owner-form'

export const metadata = { title: 'Create owner' }

export default async function NewOwnerPage() {
  const session = await currentAdminSession()
  if (!session || !roleAllows(session.admin.role, 'admin')) {
    return (
      <>
        <p className="breadcrumb">
          <Link href="/admin/owners">← Owners</Link>
        </p>
        <h1>Create owner</h1>
        <p>Only an administrator with the admin role can create owners. Ask one to create the owner, or to give you that role.</p>
      </>
    )
  }
  return (
    <>
      <p className="breadcrumb">
        <Link href="/admin/owners">← Owners</Link>
      </p>
      <h1>Create owner</h1>
      <p>
        The owner gets no password here: after creating them, create an invitation link on their page and pass it on. They set their own password with
        it.
      </p>
      <CreateOwnerForm withTenant={await hasTenants(await getDeps())} />
    </>
  )
}
