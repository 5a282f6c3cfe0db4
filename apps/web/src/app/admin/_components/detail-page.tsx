'use client'

import Link from 'next/link'
import { Fragment, type ReactNode } from 'react'
import { Notice } from './notice'
import { QueryBoundary, type QueryState } from './query-boundary'

/** Where a detail page came from: its breadcrumb (`← Grants`) and the way back when it cannot be shown. */
export interface DetailParent {
  href: string
  /** `Grants` */
  name: string
}

export function Breadcrumb({ parent: { href, name } }: { parent: DetailParent }) {
  return (
    <p className="breadcrumb">
      <Link href={href}>← {name}</Link>
    </p>
  )
}

/**
 * One record's page, the same on every detail page: loading, and a failure under the breadcrumb and the page's
 * `heading` with the way back to `parent`, or the record.
 */
export function DetailView<T>({
  query,
  what,
  heading,
  parent,
  back = { href: parent.href, label: `Back to the ${parent.name.toLowerCase()}` },
  notFound,
  children,
}: {
  query: QueryState<T>
  /** `grant`, as in "Loading the grant…" and "This grant could not be shown." */
  what: string
  heading: string
  parent: DetailParent
  /** Another way back than the parent. */
  back?: { href: string; label: string }
  notFound?: string
  children(data: T): ReactNode
}) {
  return (
    <QueryBoundary
      query={query}
      loading={`Loading the ${what}…`}
      what={`This ${what}`}
      failedTitle={`This ${what} could not be shown.`}
      notFound={notFound}
      back={back}
      frame={(failure) => (
        <>
          <Breadcrumb parent={parent} />
          <h1>{heading}</h1>
          {failure}
        </>
      )}
    >
      {children}
    </QueryBoundary>
  )
}

/**
 * A detail page's head: breadcrumb, title (with the record's id in monospace), the parts of the line under it (joined
 * by " · ", false ones left out), the page's action, then `children` and the notice.
 */
export function DetailHeader({
  parent,
  title,
  id,
  line,
  action,
  notice,
  children,
}: {
  parent: DetailParent
  title: ReactNode
  id?: string
  line: ReactNode[]
  action?: ReactNode
  notice: string | null
  children?: ReactNode
}) {
  const parts = line.filter((part) => part !== false && part !== null && part !== undefined)
  return (
    <>
      <Breadcrumb parent={parent} />
      <div className="page-head">
        <div>
          <h1>
            {title}
            {id !== undefined && (
              <>
                {' '}
                <span className="mono">{id}</span>
              </>
            )}
          </h1>
          <p>
            {parts.map((part, i) => (
              <Fragment key={i}>
                {i > 0 && ' · '}
                {part}
              </Fragment>
            ))}
          </p>
        </div>
        {action}
      </div>
      {children}
      <Notice text={notice} />
    </>
  )
}

/** A panel of a detail page, labelled by its heading; `anchor` is an id to link to it by. */
export function Panel({
  id,
  heading,
  className,
  anchor,
  children,
}: {
  id: string
  heading: ReactNode
  className?: string
  anchor?: string
  children: ReactNode
}) {
  return (
    <section className={className ? `panel ${className}` : 'panel'} aria-labelledby={`${id}-heading`} id={anchor}>
      <h2 id={`${id}-heading`}>{heading}</h2>
      {children}
    </section>
  )
}

/** One fact: its term, its value, and a class for the value (`mono`); false or null leaves it out. */
export type Fact = readonly [term: ReactNode, value: ReactNode, className?: string] | false | null

/** A definition list of facts about one record. */
export function Facts({ facts }: { facts: readonly Fact[] }) {
  return (
    <dl className="facts">
      {facts.map(
        (fact, i) =>
          fact && (
            <Fragment key={i}>
              <dt>{fact[0]}</dt>
              <dd className={fact[2]}>{fact[1]}</dd>
            </Fragment>
          ),
      )}
    </dl>
  )
}
