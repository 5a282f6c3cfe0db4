'use client'

import Link from 'next/link'
import type { FormEvent, ReactNode } from 'react'
import type { z } from 'zod'
import { parseSearchParams, type SearchSchema } from '../_lib/search-params'
import { FormActions } from './form-field'

/**
 * A list's filters as a search form, bound to the list's URL schema (the one useUrlState reads): on submit every
 * field the schema names is read from the form and parsed by it (`parse`, when the list checks more than the fields),
 * so the form and the address say the same thing; a field the form lacks, such as the page's cursor, is left out and
 * the filters start from the first page. Uncontrolled: key it on useUrlState's `key` to show what the URL says after
 * Back. `inline` lays one search field out with its button; otherwise the fields stand in a grid above Apply.
 */
export function FilterForm<S extends SearchSchema>({
  schema,
  parse = (params) => parseSearchParams(schema, params).value,
  onApply,
  heading,
  headingId,
  submitLabel,
  clearHref,
  clearLabel,
  inline = false,
  children,
}: {
  schema: S
  parse?(params: URLSearchParams): z.output<S>
  onApply(next: z.output<S>): void
  heading: string
  headingId: string
  submitLabel: string
  /** Where Clear leads, when something is filtered. */
  clearHref: string | null
  clearLabel: string
  inline?: boolean
  children: ReactNode
}) {
  function apply(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const params = new URLSearchParams()
    for (const name of Object.keys(schema.shape)) params.set(name, String(form.get(name) ?? ''))
    onApply(parse(params))
  }
  const clear = clearHref && (
    <Link href={clearHref} className="button quiet">
      {clearLabel}
    </Link>
  )
  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{heading}</h2>
      <form onSubmit={apply} role="search" aria-labelledby={headingId} className={inline ? 'inline-form' : undefined}>
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
 * the whole list while something is searched.
 */
export function SearchForm<S extends SearchSchema>({
  schema,
  onApply,
  id,
  label,
  hint,
  value,
  listHref,
}: {
  schema: S
  onApply(next: z.output<S>): void
  id: string
  label: string
  hint: ReactNode
  value: string
  /** The list without a search. */
  listHref: string
}) {
  return (
    <FilterForm
      schema={schema}
      onApply={onApply}
      heading="Search"
      headingId="search-heading"
      submitLabel="Search"
      clearHref={value ? listHref : null}
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
    </FilterForm>
  )
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
