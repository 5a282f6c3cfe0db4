'use client'

import { useCallback, useState, type FormEvent, type InputHTMLAttributes, type ReactNode, type TextareaHTMLAttributes } from 'react'
import type { z } from 'zod'
import { errorMessage } from '../_lib/errors'
import { useFocusOnFailure } from '../_lib/focus-on-failure'
import { ErrorMessage } from './ui'

// Form fields checked by the domain's own input schemas (the ones the tRPC procedures take as `.input()`), so the
// browser says what the server would: the first issue of a field, as a sentence, under it.

/** The first issue of `value` against `schema`, as a sentence; null when the schema accepts it. */
export function issueOf(schema: z.ZodType, value: unknown): string | null {
  const result = schema.safeParse(value)
  if (result.success) return null
  const text = result.error.issues[0]?.message.trim() || 'invalid value'
  const s = text[0]!.toUpperCase() + text.slice(1)
  return /[.!?]$/.test(s) ? s : `${s}.`
}

type Shape = Record<string, z.ZodType>

/**
 * The fields of one form, each checked by its schema: when it loses the focus after a change, and all at once by
 * `validate` on submit, which puts the focus on the first field refused.
 */
export function useSchemaForm<S extends Shape>(shape: S): SchemaForm<keyof S & string> {
  const [issues, setIssues] = useState<Partial<Record<keyof S, string>>>({})
  const check = useCallback(
    (name: keyof S & string, value: unknown) => {
      const issue = issueOf(shape[name]!, value)
      setIssues((all) => (all[name] === (issue ?? undefined) ? all : { ...all, [name]: issue ?? undefined }))
      return issue === null
    },
    [shape],
  )
  /** Whether every field given passes; if not, the first refused one of `form` takes the focus. */
  const validate = useCallback(
    (form: HTMLFormElement, values: Partial<Record<keyof S & string, unknown>>) => {
      const refused = (Object.keys(values) as (keyof S & string)[]).filter((name) => !check(name, values[name]))
      const first = refused[0] === undefined ? null : form.elements.namedItem(refused[0])
      if (first instanceof HTMLElement) first.focus()
      return refused.length === 0
    },
    [check],
  )
  /** The fields' text as typed (trimmed) when every one named passes `validate`; else null. All of them unless named. */
  const read = <N extends keyof S & string>(form: HTMLFormElement, names = Object.keys(shape) as N[]) => {
    const data = new FormData(form)
    const values = Object.fromEntries(names.map((name) => [name, String(data.get(name) ?? '').trim()])) as Record<N, string>
    return validate(form, values as Partial<Record<keyof S & string, unknown>>) ? values : null
  }
  const field = (name: keyof S & string) => ({
    issue: issues[name],
    // An untouched empty field is not refused on the way past; once it was refused, each change checks it again.
    onBlur: (value: string) => void ((value !== '' || issues[name]) && check(name, value)),
    onChange: (value: string) => void (issues[name] && check(name, value)),
  })
  return { field, validate, read }
}

/** A form's fields, by name: each one's binding, and the check of them all. */
export interface SchemaForm<K extends string> {
  field(name: K): {
    issue: string | undefined
    onBlur(value: string): void
    onChange(value: string): void
  }
  validate(form: HTMLFormElement, values: Partial<Record<K, unknown>>): boolean
  read<N extends K = K>(form: HTMLFormElement, names?: N[]): Record<N, string> | null
}

/** The input attributes of a password field in the console's forms. */
export const PASSWORD_INPUT = { type: 'password', required: true, maxLength: 256 } as const

/** The input attributes of an email field in the console's forms. */
export const EMAIL_INPUT = { type: 'email', required: true, maxLength: 254, autoComplete: 'off', spellCheck: false } as const

/**
 * A labelled input of the console's forms: its hint under it, and an issue (role alert) with aria-invalid. With
 * `rows`, a text area of that many rows.
 */
export function Field({
  id,
  label,
  hint,
  issue,
  rows,
  ...input
}: { id: string; label: string; hint?: ReactNode; issue?: string; rows?: number } & Omit<InputHTMLAttributes<HTMLInputElement>, 'id'>) {
  const hintId = hint ? `${id}-hint` : null
  const issueId = `${id}-issue`
  const describedBy = [hintId, issue ? issueId : null].filter(Boolean).join(' ')
  const control = { id, 'aria-invalid': issue ? ('true' as const) : undefined, 'aria-describedby': describedBy || undefined }
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {rows === undefined ? (
        <input {...input} {...control} />
      ) : (
        <textarea {...(input as TextareaHTMLAttributes<HTMLTextAreaElement>)} {...control} rows={rows} />
      )}
      {hint && (
        <span className="hint" id={hintId!}>
          {hint}
        </span>
      )}
      {issue && (
        <span className="error-text" id={issueId} role="alert">
          {issue}
        </span>
      )}
    </div>
  )
}

/** A Field bound to one field of a schema form: the schema's issue under it once it lost the focus or on submit. */
export function SchemaField<K extends string>({
  form,
  name,
  ...field
}: { form: SchemaForm<K>; name: NoInfer<K>; id: string; label: string; hint?: ReactNode; rows?: number } & Omit<
  InputHTMLAttributes<HTMLInputElement>,
  'form' | 'name' | 'id'
>) {
  const bound = form.field(name)
  return (
    <Field
      {...field}
      name={name}
      issue={bound.issue}
      onBlur={(e) => bound.onBlur(e.currentTarget.value)}
      onChange={(e) => bound.onChange(e.currentTarget.value)}
    />
  )
}

/** A submit button that says it is busy while its mutation runs. */
export function SubmitButton({ label, busyLabel, busy }: { label: string; busyLabel?: string; busy?: boolean }) {
  return (
    <button type="submit" className="button" disabled={busy}>
      {busy && busyLabel ? busyLabel : label}
    </button>
  )
}

/** A form's submit row: the button (its busy wording while the mutation runs), then any other action (Cancel, Clear). */
export function FormActions({ label, busyLabel, busy, children }: { label: string; busyLabel?: string; busy?: boolean; children?: ReactNode }) {
  return (
    <div className="filter-actions">
      <SubmitButton label={label} busyLabel={busyLabel} busy={busy} />
      {children}
    </div>
  )
}

/** What a MutationForm reads of its TanStack mutation. */
interface MutationState {
  isError: boolean
  isPending: boolean
  error: unknown
  failureCount: number
  submittedAt: number
}

/** The words of a MutationForm: its heading, the title of a refusal, the submit button and its busy wording. */
export interface MutationFormTexts {
  heading: string
  failed: string
  submit: string
  busy: string
}

/**
 * A panel form that runs one mutation: its heading, the server's refusal above the fields (it takes the focus, see
 * useFocusOnFailure), the fields, and the submit row.
 */
export function MutationForm({
  headingId,
  texts,
  mutation,
  onSubmit,
  children,
}: {
  headingId: string
  texts: MutationFormTexts
  mutation: MutationState
  onSubmit(event: FormEvent<HTMLFormElement>): void
  children: ReactNode
}) {
  const errorRef = useFocusOnFailure(mutation)
  return (
    <form className="panel" onSubmit={onSubmit} aria-labelledby={headingId}>
      <h2 id={headingId}>{texts.heading}</h2>
      {mutation.isError && (
        <div ref={errorRef} tabIndex={-1}>
          <ErrorMessage title={texts.failed}>{errorMessage(mutation.error)}</ErrorMessage>
        </div>
      )}
      {children}
      <FormActions label={texts.submit} busyLabel={texts.busy} busy={mutation.isPending} />
    </form>
  )
}
