'use client'

import Link from 'next/link'
import type { ColumnDef } from '@tanstack/react-table'
import type { GrantStatusName } from '@gnap/domain/protocol'
import { GrantStatusBadge, Time } from './ui'

// Columns more than one table of the console shows the same way.

/** A grant's id, linking to its page. */
export function grantIdColumn<T extends { id: string }>(): ColumnDef<T, unknown> {
  return {
    id: 'grant',
    header: 'Grant',
    cell: ({ row }) => (
      <Link href={`/admin/grants/${row.original.id}`} className="mono">
        {row.original.id}
      </Link>
    ),
  }
}

/** A grant's status, as a badge. */
export function grantStatusColumn<T extends { status: GrantStatusName }>(): ColumnDef<T, unknown> {
  return { id: 'status', header: 'Status', cell: ({ row }) => <GrantStatusBadge status={row.original.status} /> }
}

/** When a grant was requested. */
export function requestedColumn<T extends { createdAt: Date }>(): ColumnDef<T, unknown> {
  return { id: 'requested', header: 'Requested', cell: ({ row }) => <Time value={row.original.createdAt} /> }
}

/** When a row was created, and by whom under it (with `note`'s words after the name, when it has any). */
export function createdByColumn<T extends { createdAt: Date; createdBy: string }>(
  id: string,
  header: string,
  note: (row: T) => string | null = () => null,
): ColumnDef<T, unknown> {
  return {
    id,
    header,
    cell: ({ row: { original: r } }) => (
      <>
        <Time value={r.createdAt} />
        <span className="cell-sub">
          by {r.createdBy}
          {note(r) !== null && `, ${note(r)}`}
        </span>
      </>
    ),
  }
}
