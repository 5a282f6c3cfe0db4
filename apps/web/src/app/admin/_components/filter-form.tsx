'use client'

import Link from 'next/link'
import type { FormEvent, ReactNode } from 'react'
import type { z } from 'zod'
import { parseSearchParams, type SearchSchema } from '../_lib/search-params'
import type { UrlState } from '../_lib/url-state'
import { FormActions } from './form-field'

/**
 * A list's filters as a search form, bound to the list's URL state (useUrlState) and so to its schema: on submit
 * every field the schema names is read from the form and parsed by it (`parse`, when the list checks more than the
 * fields), and the result becomes the address; a field the form lacks, such as the page's cursor, is left out, so new
 * filters start from the first page. Uncontrolled, and keyed on the URL: after Back it shows what the address says.
 * `inline` lays one search field out with its button; otherwise the fields stand in a grid above Apply.
 */
export function FilterForm<S extends SearchSchema>({
  url,
  parse = (params) => parseSearchParams(url.schema, params).value,
  heading,
  headingId = 'filters-heading',
  submitLabel = 'Apply',
  clearHref,
  clearLabel = 'Clear filters',
  inline = false,
  children,
}: {
  url: UrlState<S>
  parse?(params: URLSearchParams): z.output<S>
  heading: string
  headingId?: string
  submitLabel?: string
  /** Where Clear leads, when something is filtered. */
  clearHref: string | null
  clearLabel?: string
  inline?: boolean
  children: ReactNode
}) {
  function apply(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const params = new URLSearchParams()
    for (const name of Object.keys(url.schema.shape)) params.set(name, String(form.get(name) ?? ''))
    url.set(parse(params))
  }
  const clear = clearHref && (
    <Link href={clearHref} className="button quiet">
      {clearLabel}
    </Link>
  )
  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{heading}</h2>
      <form key={url.key} onSubmit={apply} role="search" aria-labelledby={headingId} className={inline ? 'inline-form' : undefined}>
        {inline ? (
          <>
            {children}
            <button type="submit" className="button">
              {submitLabel}
            </button>
            {clear}
          </>
        ) : (
          <>
            <div className="filters">{children}</div>
            <FormActions label={submitLabel}>{clear}</FormActions>
          </>
        )}
      </form>
    </section>
  )
}

/**
 * A list's one search field (`q`) with its hint, in an inline FilterForm headed "Search": Search, and Clear back to
 * the whole list while something is searched. `extra`: more fields of the list's schema, after the search field
 * (`filtered` says whether one of them is set, for Clear).
 */
export function SearchForm<S extends SearchSchema>({
  url,
  id,
  label,
  hint,
  extra,
  filtered = false,
}: {
  url: UrlState<S>
  id: string
  label: string
  hint: ReactNode
  extra?: ReactNode
  filtered?: boolean
}) {
  const value = String(url.state.q ?? '')
  return (
    <FilterForm
      url={url}
      heading="Search"
      headingId="search-heading"
      submitLabel="Search"
      clearHref={value || filtered ? url.path : null}
      clearLabel="Clear"
      inline
    >
      <div className="grow">
        <label htmlFor={id}>{label}</label>
        <input id={id} name="q" defaultValue={value} autoComplete="off" spellCheck={false} aria-describedby={`${id}-hint`} />
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      </div>
      {extra}
    </FilterForm>
  )
}

/** A select's options from a map of value to label. */
export function Options({ options }: { options: Record<string, string> }) {
  return Object.entries(options).map(([value, label]) => (
    <option key={value} value={value}>
      {label}
    </option>
  ))
}

/** The two days that bound a list's dates (`from`, `to`), both included, in UTC. */
export function DayRangeFields({ fromLabel, toLabel, from, to }: { fromLabel: string; toLabel: string; from?: string; to?: string }) {
  return (
    <>
      <div>
        <label htmlFor="f-from">{fromLabel}</label>
        <input id="f-from" name="from" type="date" defaultValue={from ?? ''} />
      </div>
      <div>
        <label htmlFor="f-to">{toLabel}</label>
        <input id="f-to" name="to" type="date" defaultValue={to ?? ''} aria-describedby="f-to-hint" />
        <span className="hint" id="f-to-hint">
          Days in UTC, both included.
        </span>
      </div>
    </>
  )
}
