'use client'

import { useEffect, useId, useRef, useState, type ReactNode } from 'react'

interface ConfirmDialogProps {
  open: boolean
  title: string
  children: ReactNode
  confirmLabel: string
  busyLabel: string
  busy: boolean
  /** A failure of the confirmed action, shown inside the dialog. */
  error: string | null
  onConfirm(): void
  onCancel(): void
}

/**
 * A modal confirmation (the native <dialog>: focus moves into it and stays there, Escape cancels, the page behind
 * is inert). Cancel has the initial focus, so Enter never confirms by accident.
 */
function ConfirmDialog({ open, title, children, confirmLabel, busyLabel, busy, error, onConfirm, onCancel }: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  const bodyId = useId()

  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    if (open && !dialog.open) dialog.showModal()
    if (!open && dialog.open) dialog.close()
  }, [open])

  return (
    <dialog
      ref={ref}
      className="confirm"
      aria-labelledby={titleId}
      aria-describedby={bodyId}
      onCancel={(e) => {
        e.preventDefault()
        if (!busy) onCancel()
      }}
    >
      <h2 id={titleId}>{title}</h2>
      <div id={bodyId}>{children}</div>
      {error && (
        <div className="message error" role="alert">
          <p>{error}</p>
        </div>
      )}
      <div className="dialog-actions">
        <button type="button" className="button quiet" onClick={onCancel} disabled={busy} autoFocus>
          Cancel
        </button>
        <button type="button" className="button danger" onClick={onConfirm} disabled={busy}>
          {busy ? busyLabel : confirmLabel}
        </button>
      </div>
    </dialog>
  )
}

/**
 * A danger button that opens a ConfirmDialog whose confirm button carries the same label (the console's revoke
 * actions). Its open and error state comes from `useConfirmation`, which the caller's mutation callbacks change.
 */
export function ConfirmedAction({ label, onOpen, ...dialog }: Omit<ConfirmDialogProps, 'confirmLabel'> & { label: string; onOpen(): void }) {
  return (
    <>
      <button type="button" className="button danger" onClick={onOpen}>
        {label}
      </button>
      <ConfirmDialog {...dialog} confirmLabel={label} />
    </>
  )
}

/**
 * The state of a ConfirmedAction: `props` go to it; the caller's mutation calls `close()` on success and `fail(message)`
 * on failure (shown inside the dialog, which stays open). Opening the dialog again clears the last failure.
 */
export function useConfirmation() {
  const [open, setOpen] = useState(false)
  const [error, setError] = useState<string | null>(null)
  return {
    open,
    close: () => setOpen(false),
    fail: (message: string) => setError(message),
    props: {
      open,
      error,
      onOpen: () => {
        setError(null)
        setOpen(true)
      },
      onCancel: () => setOpen(false),
    },
  }
}
