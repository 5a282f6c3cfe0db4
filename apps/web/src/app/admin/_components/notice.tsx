'use client'

import { useEffect, useRef } from 'react'

/** A success message that takes the focus, so a screen reader reads it and the keyboard continues from there. */
export function Notice({ text }: { text: string | null }) {
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (text) ref.current?.focus()
  }, [text])
  if (!text) return null
  return (
    <div className="message success" role="status" tabIndex={-1} ref={ref}>
      <p>{text}</p>
    </div>
  )
}
