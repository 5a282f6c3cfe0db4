import { z } from 'zod'

// A URL query read through a zod object schema, field by field: a value that makes no sense is left out (its field
// takes its default) and named in `invalid`, so a page shows the rest and an export can refuse. Written back in the
// schema's order, defaults and empty values left out. Used by the pages (useUrlState) and by route handlers alike.

export type SearchSchema = z.ZodObject<Record<string, z.ZodType>>

export function parseSearchParams<S extends SearchSchema>(schema: S, params: URLSearchParams): { value: z.output<S>; invalid: string[] } {
  const invalid: string[] = []
  const value: Record<string, unknown> = {}
  for (const [name, field] of Object.entries(schema.shape)) {
    const raw = params.get(name)?.trim()
    const parsed = field.safeParse(raw === '' ? undefined : raw)
    if (parsed.success) {
      value[name] = parsed.data
    } else {
      invalid.push(name)
      value[name] = field.safeParse(undefined).data
    }
  }
  return { value: value as z.output<S>, invalid }
}

/** The URL query of a state (defaults left out): `?` and all, or empty. */
export function searchString<S extends SearchSchema>(schema: S, state: z.output<S>): string {
  const p = new URLSearchParams()
  for (const [name, field] of Object.entries(schema.shape)) {
    const v = (state as Record<string, unknown>)[name]
    if (v === undefined || v === null || v === '' || v === field.safeParse(undefined).data) continue
    p.set(name, String(v))
  }
  const s = p.toString()
  return s ? `?${s}` : ''
}

/** An optional text of at most `max` characters (trimmed; empty is absent). */
export const optionalText = (max: number) => z.string().trim().max(max).optional()

/** `exact` or `prefix`, `exact` when absent. */
export const matchMode = z.enum(['exact', 'prefix']).default('exact')

/** A day, YYYY-MM-DD (UTC). */
export const optionalDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)))
  .optional()
