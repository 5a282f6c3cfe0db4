// A hint inside one process that the outbox has new rows: recordEvents raises it and the delivery worker of the same
// process wakes a moment later instead of at its next poll. Only a hint: the transaction may still roll back, or
// commit after the worker looked; the worker's regular poll is what every delivery relies on (docs/webhooks.md).

type Listener = () => void
const listeners = new Set<Listener>()

export function signalOutbox(): void {
  for (const l of listeners) l()
}

/** Calls `listener` on every signal; returns the function that stops it. */
export function onOutboxSignal(listener: Listener): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}
