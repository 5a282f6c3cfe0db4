'use client'

import { flexRender, getCoreRowModel, useReactTable, type ColumnDef, type RowData } from '@tanstack/react-table'
import Link from 'next/link'
import { useEffect, useRef, useState, type ReactNode } from 'react'

// The console's tables: columns in, a captioned table out. Sorting and paging stay on the server (keyset pages, the
// order in the URL): a sortable column carries `meta.sort`, its header a link that flips the order and `aria-sort`.

declare module '@tanstack/react-table' {
  interface ColumnMeta<TData extends RowData, TValue> {
    /** The order of the list by this column, when it is sortable: the header links to the flipped order. */
    sort?: { direction: 'ascending' | 'descending' | undefined; href: string }
    /** The class of the column's cells (`nowrap`). */
    className?: string
    /** Stays in view while the table scrolls sideways (the column that names the row). */
    sticky?: boolean
  }
}

export type Columns<T> = ColumnDef<T, unknown>[]

export function DataTable<T>({
  caption,
  captionHidden = false,
  columns,
  rows,
  rowKey,
  busy,
  className,
}: {
  caption: ReactNode
  /** A caption for screen readers only, where a heading above says what the table is. */
  captionHidden?: boolean
  columns: Columns<T>
  rows: T[]
  rowKey(row: T): string
  /** `aria-busy` while a newer page loads (lists that keep the previous page on screen meanwhile). */
  busy?: boolean
  /** Classes of the scrolling frame (`endpoints-table`). */
  className?: string
}) {
  // TanStack Table keeps its state in a mutable object the React compiler cannot memoize: left uncompiled.
  'use no memo'
  // eslint-disable-next-line react-hooks/incompatible-library -- see 'use no memo' above
  const table = useReactTable({ data: rows, columns, getCoreRowModel: getCoreRowModel(), getRowId: (row) => rowKey(row) })
  return (
    <ScrollFrame className={className}>
      <table aria-busy={busy === undefined ? undefined : busy ? 'true' : 'false'}>
        <caption className={captionHidden ? 'visually-hidden' : undefined}>{caption}</caption>
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => {
                const meta = header.column.columnDef.meta
                const label = flexRender(header.column.columnDef.header, header.getContext())
                return (
                  <th key={header.id} scope="col" aria-sort={meta?.sort?.direction} className={meta?.sticky ? 'sticky' : undefined}>
                    {meta?.sort ? (
                      <Link href={meta.sort.href} className="sort">
                        {label} <SortArrow direction={meta.sort.direction} />
                      </Link>
                    ) : (
                      label
                    )}
                  </th>
                )
              })}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id}>
              {row.getVisibleCells().map((cell) => {
                const meta = cell.column.columnDef.meta
                const classes = [meta?.className, meta?.sticky ? 'sticky' : undefined].filter(Boolean).join(' ')
                return (
                  <td key={cell.id} className={classes || undefined}>
                    {flexRender(cell.column.columnDef.cell, cell.getContext())}
                  </td>
                )
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollFrame>
  )
}

function SortArrow({ direction }: { direction: 'ascending' | 'descending' | undefined }) {
  if (!direction) return <span className="visually-hidden">(sort by this column)</span>
  return <span aria-hidden="true">{direction === 'descending' ? '↓' : '↑'}</span>
}

/**
 * The table's own scrolling frame. When the table is wider than the screen (a phone), a shadow marks the side that
 * has more, a line under it says so, and the frame itself takes the focus so the arrow keys scroll it.
 */
function ScrollFrame({ className, children }: { className?: string; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null)
  const [edges, setEdges] = useState({ left: false, right: false })
  useEffect(() => {
    const frame = ref.current
    if (!frame) return
    const update = () => {
      const left = frame.scrollLeft > 1
      const right = frame.scrollLeft + frame.clientWidth < frame.scrollWidth - 1
      setEdges((e) => (e.left === left && e.right === right ? e : { left, right }))
    }
    update()
    const observer = new ResizeObserver(update)
    observer.observe(frame)
    if (frame.firstElementChild) observer.observe(frame.firstElementChild)
    frame.addEventListener('scroll', update, { passive: true })
    return () => {
      observer.disconnect()
      frame.removeEventListener('scroll', update)
    }
  }, [])
  const scrolls = edges.left || edges.right
  return (
    <div className="table-frame" data-more-left={edges.left || undefined} data-more-right={edges.right || undefined}>
      <div
        ref={ref}
        className={className ? `table-wrap ${className}` : 'table-wrap'}
        tabIndex={scrolls ? 0 : undefined}
        role={scrolls ? 'region' : undefined}
        aria-label={scrolls ? 'Table, scrolls sideways' : undefined}
      >
        {children}
      </div>
      {scrolls && (
        <p className="scroll-cue" aria-hidden="true">
          {edges.right ? 'Scroll sideways for more columns →' : '← Scroll back for the first columns'}
        </p>
      )}
    </div>
  )
}
