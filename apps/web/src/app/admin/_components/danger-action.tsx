'use client'

import { useMutation, useQueryClient, type QueryFilters, type UseMutationOptions } from '@tanstack/react-query'
import { useRouter } from 'next/navigation'
import type { ReactNode } from 'react'
import { errorMessage } from '../_lib/errors'
import { ConfirmedAction, useConfirmation } from './confirm-dialog'
import { ErrorMessage } from './ui'
import { Panel } from './detail-page'

/** What a console action runs and what follows it; shared by DangerAction and DangerZone's enable button. */
interface ActionRun<TData, TError, TVariables, TContext> {
  /** The procedure's mutation options (`trpc.x.y.mutationOptions()`); an `onMutate` in them still runs. */
  mutation: UseMutationOptions<TData, TError, TVariables, TContext>
  /** The procedure's input, read when the action runs. */
  input(): TVariables
  /** After success: the notice to show (through `onDone`), or whatever else the page does with the answer. */
  onSuccess?(result: TData): void
  /** The queries to refresh after success: all of them unless told; none for false. */
  invalidate?: QueryFilters | false
  /** Where to go once they are refreshed (after a delete, the list). */
  goTo?: string
  /** The sentence for NOT_FOUND in the failure shown. */
  notFound?: string
}

/** Runs an ActionRun: on success `onSuccess`, then the refresh, then `goTo`. */
function useActionRun<TData, TError, TVariables, TContext>(
  { mutation, onSuccess, invalidate, goTo }: ActionRun<TData, TError, TVariables, TContext>,
  hooks: { onSuccess?(): void; onError?(error: TError): void; forget?: boolean; refreshOnFailure?: boolean } = {},
) {
  const queryClient = useQueryClient()
  const router = useRouter()
  const run = useMutation({
    ...mutation,
    ...(hooks.forget ? { gcTime: 0 } : {}),
    onSuccess: async (result: TData) => {
      hooks.onSuccess?.()
      // An answer that holds a secret is kept by the page only as long as it shows it, not in the query client.
      if (hooks.forget) run.reset()
      onSuccess?.(result)
      if (invalidate !== false) await queryClient.invalidateQueries(invalidate)
      if (goTo) router.push(goTo)
    },
    onError: (error: TError) => {
      hooks.onError?.(error)
      // The record may have changed meanwhile (revoked elsewhere, deleted): show it as it is now.
      if (hooks.refreshOnFailure && invalidate !== false) void queryClient.invalidateQueries(invalidate)
    },
  })
  return run
}

/**
 * A danger button, its confirmation and the action it confirms: the dialog closes on success and the page says what
 * happened (`onSuccess`, then the queries refresh); a failure is shown inside the dialog, which stays open.
 */
export function DangerAction<TData, TError, TVariables, TContext>({
  words: [label, title, busyLabel],
  available = true,
  canOpen,
  onError,
  forget,
  refreshOnFailure,
  children,
  ...action
}: ActionRun<TData, TError, TVariables, TContext> & {
  /** The button's label, the dialog's title, and the confirm button's words while the action runs. */
  words: readonly [label: string, title: string, busyLabel: string]
  /** False once the action no longer applies: the button goes, but not while its dialog is open. */
  available?: boolean
  /** A check before the dialog opens; false keeps it closed (the check put the focus on what to fix). */
  canOpen?(): boolean
  /** A failure the caller deals with itself: 'handled' shows nothing in the dialog. */
  onError?(error: TError): 'handled' | void
  /** The answer holds a secret: the query client does not keep it. */
  forget?: boolean
  /** Refresh the queries after a failure too. */
  refreshOnFailure?: boolean
  children: ReactNode
}) {
  const confirmation = useConfirmation()
  const run = useActionRun(action, {
    forget,
    refreshOnFailure,
    onSuccess: confirmation.close,
    onError: (e) => {
      if (onError?.(e) !== 'handled') confirmation.fail(errorMessage(e, { notFound: action.notFound }))
    },
  })
  if (!available && !confirmation.open) return null
  return (
    <ConfirmedAction
      label={label}
      {...confirmation.props}
      onOpen={() => (canOpen?.() ?? true) && confirmation.props.onOpen()}
      title={title}
      busyLabel={busyLabel}
      busy={run.isPending}
      onConfirm={() => run.mutate(action.input())}
    >
      {children}
    </ConfirmedAction>
  )
}

/**
 * A detail page's "Disable or delete" panel: the disable action while `enabled`, else an Enable button (no
 * confirmation: it undoes nothing), then the delete action; an Enable that failed says why under them.
 */
export function DangerZone<TData, TError, TVariables, TContext>({
  enabled,
  disable,
  enable: { label, busyLabel, failedTitle, ...enable },
  children,
}: {
  enabled: boolean
  disable: ReactNode
  enable: ActionRun<TData, TError, TVariables, TContext> & { label: string; busyLabel: string; failedTitle: string }
  children: ReactNode
}) {
  const run = useActionRun(enable)
  return (
    <Panel id="danger" heading="Disable or delete" className="danger-zone">
      <div className="actions-row">
        {enabled ? (
          disable
        ) : (
          <button type="button" className="button secondary" disabled={run.isPending} onClick={() => run.mutate(enable.input())}>
            {run.isPending ? busyLabel : label}
          </button>
        )}
        {children}
      </div>
      {!enabled && run.isError && <ErrorMessage title={failedTitle}>{errorMessage(run.error, { notFound: enable.notFound })}</ErrorMessage>}
    </Panel>
  )
}
