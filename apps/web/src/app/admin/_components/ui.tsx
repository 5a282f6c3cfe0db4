import Link from 'next/link'
import type { InputHTMLAttributes, ReactNode } from 'react'
import type { GrantStatusName } from '@gnap/domain/protocol'
import type { TokenStatus } from '@gnap/domain/operator'
import { auditActionLabel, formatDateTime, GRANT_STATUS_LABEL, TOKEN_STATUS_LABEL } from '../_lib/format'

// Small building blocks shared by the console's pages (no state, usable from server and client components).

export function Time({ value, empty = '—' }: { value: Date | null | undefined; empty?: string }) {
  if (!value) return <span className="muted">{empty}</span>
  return <time dateTime={value.toISOString()}>{formatDateTime(value)}</time>
}

export function GrantStatusBadge({ status }: { status: GrantStatusName }) {
  return <span className={`badge ${status}`}>{GRANT_STATUS_LABEL[status]}</span>
}

export function TokenStatusBadge({ status }: { status: TokenStatus }) {
  return <span className={`badge ${status}`}>{TOKEN_STATUS_LABEL[status]}</span>
}

/** A loading state that screen readers announce. */
export function Loading({ children }: { children: ReactNode }) {
  return (
    <p className="loading" role="status">
      {children}
    </p>
  )
}

export function ErrorMessage({ title, children, action }: { title: string; children: ReactNode; action?: ReactNode }) {
  return (
    <div className="message error" role="alert">
      <strong>{title}</strong>
      <p>{children}</p>
      {action}
    </div>
  )
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <strong>{title}</strong>
      {children}
    </div>
  )
}

/**
 * A text filter that matches the whole value or its beginning: the "is / starts with" select comes before the field
 * it qualifies. Uncontrolled (the form reads it on submit); `children` go under the field (a hint, a datalist).
 */
export function MatchField(props: {
  id: string
  label: string
  name: string
  value: string | undefined
  matchName: string
  match: 'exact' | 'prefix'
  /** Names the select for screen readers: "How the address matches". */
  matchLabel: string
  input?: InputHTMLAttributes<HTMLInputElement>
  children?: ReactNode
}) {
  return (
    <div className="wide">
      <label htmlFor={props.id}>{props.label}</label>
      <div className="client-field">
        <select name={props.matchName} defaultValue={props.match} aria-label={props.matchLabel}>
          <option value="exact">is</option>
          <option value="prefix">starts with</option>
        </select>
        <input id={props.id} name={props.name} type="text" defaultValue={props.value ?? ''} autoComplete="off" spellCheck={false} {...props.input} />
      </div>
      {props.children}
    </div>
  )
}

/** The keyset pager under a list: whether more follow, a link back to the first page when not on it, and the next. */
export function Pager({ noun, firstHref, nextHref }: { noun: string; firstHref: string | null; nextHref: string | null }) {
  return (
    <nav className="pager" aria-label={`Pages of ${noun}`}>
      <span className="muted">{nextHref ? `More ${noun} on the next page.` : 'This is the last page.'}</span>
      <div className="links">
        {firstHref && (
          <Link href={firstHref} className="button quiet">
            First page
          </Link>
        )}
        {nextHref && (
          <Link href={nextHref} className="button secondary">
            Next page
          </Link>
        )}
      </div>
    </nav>
  )
}

/** The audit entries about one thing (an owner, a client), newest first, as a panel with its heading. */
export function AuditEntries({
  heading,
  entries,
}: {
  heading: string
  entries: { id: string; actor: string; action: string; detail: string | null; createdAt: Date }[]
}) {
  return (
    <section className="panel" aria-labelledby="audit-heading">
      <h2 id="audit-heading">{heading}</h2>
      {entries.length === 0 ? (
        <p className="muted">None yet.</p>
      ) : (
        <ol className="timeline">
          {entries.map((a) => (
            <li key={a.id}>
              <Time value={a.createdAt} />
              {auditActionLabel(a.action)} by {a.actor}
              {a.detail && <span className="cell-sub">{a.detail}</span>}
            </li>
          ))}
        </ol>
      )}
    </section>
  )
}
