'use client'

import { useEffect, useRef } from 'react'

/**
 * A ref for the place a form shows its mutation's refusal: that place takes the focus on each failure, so a screen
 * reader reads it and the keyboard continues from there.
 */
export function useFocusOnFailure(mutation: { isError: boolean; failureCount: number; submittedAt: number }) {
  const ref = useRef<HTMLDivElement>(null)
  const failedAt = mutation.isError ? mutation.failureCount + mutation.submittedAt : 0
  useEffect(() => {
    if (failedAt) ref.current?.focus()
  }, [failedAt])
  return ref
}
