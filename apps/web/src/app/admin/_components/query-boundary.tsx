'use client'

import Link from 'next/link'
import type { ReactNode } from 'react'
import { errorCode, errorMessage } from '../_lib/errors'
import { ErrorMessage, Loading } from './ui'

/** What the boundary reads of a TanStack query (a plain or an infinite one). */
export interface QueryState<T> {
  isPending: boolean
  isError: boolean
  error: unknown
  data: T | undefined
  refetch(): unknown
}

/**
 * The states of one query, the same on every page: pending (announced), failed (the server's words, and Try again),
 * empty, and the data. A list keeps its previous page on screen under a failed refresh; a detail page (`back`) shows
 * only the failure, in its `frame` (breadcrumb and heading), with the way back.
 */
export function QueryBoundary<T>({
  query,
  loading,
  what,
  failedTitle,
  notFound,
  firstPageHref = null,
  back,
  frame = (node) => node,
  isEmpty,
  empty,
  children,
}: {
  query: QueryState<T>
  /** `Loading grants…` */
  loading: string
  /** `The grants`, as in "The grants could not be loaded." */
  what: string
  /** Another title for the failure than "… could not be loaded." */
  failedTitle?: string
  /** The sentence for NOT_FOUND ("No grant has this id."). */
  notFound?: string
  /** A list's first page, when this is a later one: a refused cursor then means the page is out of date. */
  firstPageHref?: string | null
  /** A detail page's way back, in place of Try again. */
  back?: { href: string; label: string }
  frame?(node: ReactNode): ReactNode
  isEmpty?(data: T): boolean
  empty?: ReactNode
  children(data: T): ReactNode
}) {
  if (query.isPending) return <Loading>{loading}</Loading>
  const failure = query.isError && (
    <QueryError
      title={failedTitle ?? `${what} could not be loaded.`}
      error={query.error}
      notFound={notFound}
      firstPageHref={firstPageHref}
      back={back}
      onRetry={() => void query.refetch()}
    />
  )
  if (query.isError && (back || query.data === undefined)) return frame(failure)
  const data = query.data as T
  return (
    <>
      {failure}
      {isEmpty?.(data) ? empty : children(data)}
    </>
  )
}

/**
 * A query that failed. On a later page of a list, a cursor the server refused (BAD_REQUEST) means the page is out of
 * date and the way out is the first page; else the way out is `back` or Try again, since the failure may pass.
 */
function QueryError({
  title,
  error,
  notFound,
  firstPageHref,
  back,
  onRetry,
}: {
  title: string
  error: unknown
  notFound?: string
  firstPageHref: string | null
  back?: { href: string; label: string }
  onRetry(): void
}) {
  const staleCursor = firstPageHref !== null && errorCode(error) === 'BAD_REQUEST'
  const action = staleCursor ? (
    <Link href={firstPageHref}>Go to the first page</Link>
  ) : back ? (
    <Link href={back.href}>{back.label}</Link>
  ) : (
    <button type="button" className="button secondary" onClick={onRetry}>
      Try again
    </button>
  )
  return (
    <ErrorMessage title={staleCursor ? 'This page of results is no longer valid.' : title} action={action}>
      {errorMessage(error, { notFound })}
    </ErrorMessage>
  )
}
