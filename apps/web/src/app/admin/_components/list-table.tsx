'use client'

import Link from 'next/link'
import type { ReactNode } from 'react'
import { DataTable, type Columns } from './data-table'
import { QueryBoundary } from './query-boundary'
import { Empty, Pager } from './ui'

/** What a list page reads of its TanStack query: a page of `items`, and whether a newer one is loading. */
interface ListQuery<T> {
  isPending: boolean
  isError: boolean
  isFetching: boolean
  error: unknown
  data: { items: T[]; nextCursor?: string | null } | undefined
  refetch(): unknown
}

/**
 * A list page's table: the query's states (QueryBoundary), `empty` when the page has no rows, else the columns over
 * the rows and, for a paged list (`pager`), the keyset pager under them. A `live` list keeps the previous page on
 * screen while a newer one loads: `aria-busy`, and "(updating…)" after the caption.
 */
export function ListTable<T>({
  query,
  loading,
  what,
  empty,
  columns,
  rowKey,
  caption,
  captionHidden,
  className,
  live = false,
  pager,
  section,
}: {
  query: ListQuery<T>
  /** `Loading grants…` */
  loading: string
  /** `The grants`, as in "The grants could not be loaded." */
  what: string
  /** What an empty list shows: a title and a sentence in a panel, or anything else. */
  empty: ReactNode | { title: string; text: ReactNode }
  columns: Columns<T>
  rowKey(row: T): string
  caption(items: T[]): ReactNode
  captionHidden?: boolean
  className?: string
  live?: boolean
  /** A paged list: its noun ("grants"), its first page when this is a later one, and the address of the next. */
  pager?: { noun: string; firstHref: string | null; nextHref(cursor: string): string }
  /** A list under its own heading: the section it stands in, labelled by the heading (`id`). */
  section?: { id: string; heading: string }
}) {
  const list = (
    <QueryBoundary
      query={query}
      loading={loading}
      what={what}
      firstPageHref={pager?.firstHref ?? null}
      isEmpty={(data) => data.items.length === 0}
      empty={isEmptyText(empty) ? <EmptyPanel title={empty.title}>{empty.text}</EmptyPanel> : empty}
    >
      {(data) => (
        <>
          <DataTable
            className={className}
            columns={columns}
            rows={data.items}
            rowKey={rowKey}
            busy={live ? query.isFetching : undefined}
            caption={
              <>
                {caption(data.items)}
                {live && query.isFetching ? ' (updating…)' : ''}
              </>
            }
            captionHidden={captionHidden}
          />
          {pager && <Pager noun={pager.noun} firstHref={pager.firstHref} nextHref={data.nextCursor ? pager.nextHref(data.nextCursor) : null} />}
        </>
      )}
    </QueryBoundary>
  )
  if (!section) return list
  return (
    <section aria-labelledby={section.id}>
      <h2 id={section.id}>{section.heading}</h2>
      {list}
    </section>
  )
}

const isEmptyText = (empty: unknown): empty is { title: string; text: ReactNode } =>
  typeof empty === 'object' && empty !== null && 'title' in empty && 'text' in empty

/** An empty list's panel: what is missing, and a sentence on how it comes. */
function EmptyPanel({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="panel">
      <Empty title={title}>
        <p>{children}</p>
      </Empty>
    </div>
  )
}

/** An empty later page of a keyset list (the rows it followed are gone): the way back to the first. */
export function NoMorePages({ title, firstHref }: { title: string; firstHref: string }) {
  return (
    <Empty title={title}>
      <p>
        <Link href={firstHref}>Back to the first page</Link>
      </p>
    </Empty>
  )
}

/** `3 owners`, `1 owner`: a count and its noun, plural unless one. */
export const countOf = (n: number, noun: string, plural = `${noun}s`) => `${n} ${n === 1 ? noun : plural}`
