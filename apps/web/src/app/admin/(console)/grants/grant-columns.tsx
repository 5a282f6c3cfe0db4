import Link from 'next/link'
import type { GrantStatusName } from '@gnap/domain/protocol'
import type { Columns } from '../../_components/data-table'
import { GrantStatusBadge, Time } from '../../_components/ui'

// The columns every table of grants starts with (the grants browser's, a client's, an owner's): the grant's id, linked to its page, and
// its status; and when it was requested.

export function grantIdStatusColumns<T extends { id: string; status: GrantStatusName }>(): Columns<T> {
  return [
    {
      id: 'grant',
      header: 'Grant',
      cell: ({ row }) => (
        <Link href={`/admin/grants/${row.original.id}`} className="mono">
          {row.original.id}
        </Link>
      ),
    },
    { id: 'status', header: 'Status', cell: ({ row }) => <GrantStatusBadge status={row.original.status} /> },
  ]
}

export function requestedColumn<T extends { createdAt: Date }>(): Columns<T>[number] {
  return { id: 'requested', header: 'Requested', cell: ({ row }) => <Time value={row.original.createdAt} /> }
}
