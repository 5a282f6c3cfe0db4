'use client'

import type { ReactNode } from 'react'
import { ShownOnceSecret } from './shown-once-secret'

/**
 * A one-time invitation or password-reset link (docs/protocol.md §2.13, §2.14), shown once like a new API key: in a
 * read-only field with a Copy button. `id` names the heading (`<id>-heading`) and the field (`<id>-value`).
 */
export function OneTimeLink({
  id,
  heading,
  intro,
  label,
  url,
  onDone,
}: {
  id: string
  heading: string
  /** What was done and until when the link works. */
  intro: ReactNode
  /** The field's label: "Invitation link", "Password-reset link". */
  label: string
  url: string
  onDone(): void
}) {
  return (
    <ShownOnceSecret
      id={id}
      heading={heading}
      intro={intro}
      warning="Copy the link now: this is the only time it is shown."
      explanation="It works once. Pass it on yourself to the person it is for: with it they choose their password."
      label={label}
      value={url}
      copyLabel="Copy link"
      doneLabel="Done"
      copyFailed="The browser did not allow copying: select the link and copy it."
      onDone={onDone}
    />
  )
}
