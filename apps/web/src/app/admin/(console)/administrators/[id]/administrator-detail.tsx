'use client'

import { useQuery } from '@tanstack/react-query'
import Link from 'next/link'
import { useState } from 'react'
import { useTRPC } from '../../../_lib/trpc'
import { errorMessage } from '../../../_lib/errors'
import { ForRole, useSignedInAdminId } from '../../../_lib/role'
import { Breadcrumb, DetailHeader } from '../../../_components/detail-page'
import { ErrorMessage, Loading } from '../../../_components/ui'
import { AdminStatusBadge, ROLE_TEXT } from '../admin-words'
import { AccountFacts } from './account-facts'
import { AdministratorAccess } from './administrator-access'
import { ChangeRole } from './change-role'

const ADMINISTRATORS = { href: '/admin/administrators', name: 'Administrators' }

/** One administrator: role, status, sign-in, and for an admin what may be changed. */
export function AdministratorDetail({ id }: { id: string }) {
  const trpc = useTRPC()
  const me = useSignedInAdminId()
  const admins = useQuery(trpc.admins.list.queryOptions())
  const [notice, setNotice] = useState<string | null>(null)

  if (admins.isPending) return <Loading>Loading the administrator…</Loading>
  const admin = admins.data?.find((a) => a.id === id)
  if (!admin) {
    return (
      <>
        <Breadcrumb parent={ADMINISTRATORS} />
        <h1>Administrator</h1>
        <ErrorMessage title="This administrator could not be shown." action={<Link href={ADMINISTRATORS.href}>Back to the administrators</Link>}>
          {admins.isError ? errorMessage(admins.error) : 'No administrator has this id.'}
        </ErrorMessage>
      </>
    )
  }
  const isMe = admin.id === me
  return (
    <>
      <DetailHeader
        parent={ADMINISTRATORS}
        title={admin.email}
        line={[ROLE_TEXT[admin.role].label, <AdminStatusBadge status={admin.status} />, isMe && 'You']}
        notice={notice}
      />

      <div className="grid-2">
        <AccountFacts admin={admin} />
        <ForRole role="admin">
          <ChangeRole admin={admin} isMe={isMe} onDone={setNotice} />
        </ForRole>
      </div>

      <ForRole role="admin">
        <AdministratorAccess admin={admin} isMe={isMe} onDone={setNotice} />
      </ForRole>
    </>
  )
}
