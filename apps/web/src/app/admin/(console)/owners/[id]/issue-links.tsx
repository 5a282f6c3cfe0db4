'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useTRPC } from '../../../_lib/trpc'
import { errorMessage } from '../../../_lib/errors'
import { ErrorMessage, Time } from '../../../_components/ui'
import { OneTimeLink } from '../../../_components/one-time-link'
import type { OwnerDetail } from './owner-words'

/** Invitation and password-reset links: created on demand and shown once, to pass on. */
export function IssueLinks({ owner }: { owner: OwnerDetail }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const [link, setLink] = useState<{ kind: 'invitation' | 'reset'; url: string; expiresAt: Date } | null>(null)
  const issue = useMutation(
    trpc.owners.issueLink.mutationOptions({
      onSuccess: async (r, input) => {
        setLink({ kind: input.kind, ...r })
        await queryClient.invalidateQueries()
      },
    }),
  )
  if (owner.status === 'disabled') return <p className="muted">Enable the owner before creating a sign-in link.</p>
  return (
    <>
      <p className="hint">A link works once and expires. It is shown only here, now: copy it and pass it on to the owner yourself.</p>
      <div className="actions-row">
        <button
          type="button"
          className="button secondary"
          disabled={issue.isPending}
          onClick={() => issue.mutate({ ownerId: owner.id, kind: 'invitation' })}
        >
          Create invitation link
        </button>
        <button
          type="button"
          className="button secondary"
          disabled={issue.isPending}
          onClick={() => issue.mutate({ ownerId: owner.id, kind: 'reset' })}
        >
          Create password-reset link
        </button>
      </div>
      {issue.isError && <ErrorMessage title="No link was created.">{errorMessage(issue.error)}</ErrorMessage>}
      {link && (
        <OneTimeLink
          id="owner-link"
          heading={`${link.kind === 'invitation' ? 'Invitation' : 'Password reset'} for ${owner.name}`}
          intro={
            <p>
              The link works until <Time value={link.expiresAt} />.
            </p>
          }
          label={link.kind === 'invitation' ? 'Invitation link' : 'Password-reset link'}
          url={link.url}
          onDone={() => setLink(null)}
        />
      )}
    </>
  )
}
