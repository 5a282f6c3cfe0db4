'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { useTRPC } from '../../../_lib/trpc'
import { errorMessage } from '../../../_lib/errors'
import { useFocusOnFailure } from '../../../_lib/focus-on-failure'
import { ErrorMessage } from '../../../_components/ui'
import { checkedEventTypes, EventTypeFields, type WebhookEndpoint } from '../webhook-parts'
import { NOT_FOUND } from './endpoint-words'

/** URL, description and event types, behind an Edit button. */
export function EditEndpoint({ endpoint: e, onDone }: { endpoint: WebhookEndpoint; onDone(message: string): void }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const [open, setOpen] = useState(false)
  const [missingTypes, setMissingTypes] = useState(0)
  const update = useMutation(
    trpc.webhooks.update.mutationOptions({
      onSuccess: async () => {
        setOpen(false)
        onDone('Endpoint saved. Events recorded from now on follow the new settings.')
        await queryClient.invalidateQueries({ queryKey: trpc.webhooks.pathKey() })
      },
    }),
  )
  const errorRef = useFocusOnFailure(update)
  if (!open) {
    return (
      <div className="filter-actions">
        <button type="button" className="button secondary" onClick={() => setOpen(true)}>
          Edit endpoint
        </button>
      </div>
    )
  }
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const f = new FormData(event.currentTarget)
    const eventTypes = checkedEventTypes(f)
    if (eventTypes.length === 0) {
      setMissingTypes((n) => n + 1)
      return
    }
    update.mutate({ id: e.id, url: String(f.get('url') ?? '').trim(), description: String(f.get('description') ?? '').trim(), eventTypes })
  }
  return (
    <form onSubmit={submit} aria-labelledby="edit-heading">
      <h3 id="edit-heading">Edit the endpoint</h3>
      {update.isError && (
        <div ref={errorRef} tabIndex={-1}>
          <ErrorMessage title="Not saved.">{errorMessage(update.error, { notFound: NOT_FOUND })}</ErrorMessage>
        </div>
      )}
      <div className="field">
        <label htmlFor="edit-url">URL</label>
        <input id="edit-url" name="url" type="url" required maxLength={2048} defaultValue={e.url} spellCheck={false} autoComplete="off" autoFocus />
      </div>
      <div className="field">
        <label htmlFor="edit-description">Description (optional)</label>
        <input id="edit-description" name="description" maxLength={200} defaultValue={e.description ?? ''} autoComplete="off" />
      </div>
      <EventTypeFields idPrefix="edit" checked={e.eventTypes} missing={missingTypes} onPicked={() => setMissingTypes(0)} />
      <div className="filter-actions">
        <button type="submit" className="button" disabled={update.isPending}>
          {update.isPending ? 'Saving…' : 'Save'}
        </button>
        <button
          type="button"
          className="button quiet"
          onClick={() => {
            setOpen(false)
            update.reset()
          }}
        >
          Cancel
        </button>
      </div>
    </form>
  )
}
