'use client'

import { usePathname, useRouter, useSearchParams } from 'next/navigation'
import { useCallback, useMemo } from 'react'
import type { z } from 'zod'
import { parseSearchParams, searchString, type SearchSchema } from './search-params'

/**
 * A list's filters, held in the URL query (shareable, kept on reload) and read through a zod schema: `state` is the
 * parsed query with its defaults, `href` the address of another state, `set` goes there (pushed, so Back returns to
 * the previous filters; `replace` for a change that should not add a step, such as a page size). `normalize` drops what a default
 * makes meaningless (a match mode without its text). `key` changes with the query: a form keyed on it shows what the URL says after Back.
 */
export function useUrlState<S extends SearchSchema>(schema: S, { normalize }: { normalize?(state: z.output<S>): z.output<S> } = {}): UrlState<S> {
  const params = useSearchParams()
  const path = usePathname()
  const router = useRouter()
  const key = params.toString()
  const state = useMemo(() => parseSearchParams(schema, new URLSearchParams(key)).value, [schema, key])
  const href = useCallback((next: typeof state) => `${path}${searchString(schema, normalize ? normalize(next) : next)}`, [schema, path, normalize])
  const set = useCallback(
    (next: typeof state, { replace = false }: { replace?: boolean } = {}) => (replace ? router.replace(href(next)) : router.push(href(next))),
    [router, href],
  )
  return { schema, path, state, href, set, key }
}

/** A list's filters in the URL (useUrlState): the schema that reads them, the page's path, and the state's ways. */
export interface UrlState<S extends SearchSchema> {
  schema: S
  path: string
  state: z.output<S>
  href(next: z.output<S>): string
  set(next: z.output<S>, options?: { replace?: boolean }): void
  key: string
}
