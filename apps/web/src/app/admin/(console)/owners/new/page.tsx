import Link from 'next/link'
import { CreateOwnerForm } from './create-owner-form'

export const metadata = { title: 'Create owner' }

export default function NewOwnerPage() {
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
      <CreateOwnerForm />
    </>
  )
}
