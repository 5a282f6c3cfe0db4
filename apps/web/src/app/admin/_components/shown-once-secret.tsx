'use client'

import { useEffect, useRef, useState, type ReactNode } from 'react'

/**
 * A secret shown once (a new API key, a webhook signing secret): a panel that takes the focus, says to copy it now, the
 * value in a read-only field, a Copy button and the button that ends the showing (`onDone`). The value lives only in
 * this component's props: never in the URL, the log or storage. `id` names the heading (`<id>-heading`) and the field
 * (`<id>-value`).
 */
export function ShownOnceSecret({
  id,
  heading,
  intro,
  warning,
  explanation,
  label,
  value,
  copyLabel,
  doneLabel,
  copyFailed,
  focusNextFrame = false,
  onDone,
}: {
  id: string
  heading: ReactNode
  /** Under the heading, before the warning. */
  intro?: ReactNode
  /** The warning's first line, in bold. */
  warning: string
  explanation: ReactNode
  /** The field's label. */
  label: string
  value: string
  copyLabel: string
  doneLabel: string
  /** The status line when the browser refuses to copy. */
  copyFailed: string
  /** Take the focus a frame after mounting instead of at once, for when a closing dialog gives it back in the same render. */
  focusNextFrame?: boolean
  onDone(): void
}) {
  const ref = useRef<HTMLElement>(null)
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null)
  useEffect(() => {
    if (!focusNextFrame) {
      ref.current?.focus()
      return
    }
    const frame = requestAnimationFrame(() => ref.current?.focus())
    return () => cancelAnimationFrame(frame)
  }, [focusNextFrame])
  return (
    <section className="panel" aria-labelledby={`${id}-heading`} ref={ref} tabIndex={-1}>
      <h2 id={`${id}-heading`}>{heading}</h2>
      {intro}
      <div className="message info">
        <strong>{warning}</strong>
        <p>{explanation}</p>
      </div>
      <div className="field">
        <label htmlFor={`${id}-value`}>{label}</label>
        <input
          id={`${id}-value`}
          readOnly
          value={value}
          className="mono"
          spellCheck={false}
          autoComplete="off"
          onFocus={(e) => e.currentTarget.select()}
        />
      </div>
      <div className="filter-actions">
        <button
          type="button"
          className="button secondary"
          onClick={() => {
            navigator.clipboard.writeText(value).then(
              () => setCopied('yes'),
              () => setCopied('failed'),
            )
          }}
        >
          {copyLabel}
        </button>
        <button type="button" className="button" onClick={onDone}>
          {doneLabel}
        </button>
      </div>
      <p role="status" className="hint">
        {copied === 'yes' ? 'Copied to the clipboard.' : copied === 'failed' ? copyFailed : ''}
      </p>
    </section>
  )
}
