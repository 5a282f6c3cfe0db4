'use client'

import { useState } from 'react'

/**
 * A create form whose answer holds a secret shown once (an API key, a webhook signing secret): the answer takes the
 * form's place until its holder says it is stored (`done`), and a notice then says what is ready. A new answer clears
 * the notice and refreshes the list.
 */
export function useShownOnce<C>(refresh: () => unknown, initialNotice: string | null = null) {
  const [created, setCreated] = useState<C | null>(null)
  const [notice, setNotice] = useState<string | null>(initialNotice)
  return {
    created,
    notice,
    setNotice,
    onCreated(answer: C) {
      setNotice(null)
      setCreated(answer)
      void refresh()
    },
    done(text: string) {
      setCreated(null)
      setNotice(text)
    },
  }
}
