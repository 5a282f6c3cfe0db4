'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useTRPC } from '../../../_lib/trpc'
import { errorMessage } from '../../../_lib/errors'
import { OneTimeLink } from '../../../_components/one-time-link'
import { ErrorMessage, Time } from '../../../_components/ui'
import { DisableAdministrator } from './disable-administrator'
import { ResetPassword, type IssuedLink } from './reset-password'
import { SignOutEverywhere } from './sign-out-everywhere'
import { TurnOffTwoStep } from './turn-off-two-step'
import type { AdminActionProps } from './administrator-words'
import { Panel } from '../../../_components/detail-page'

/** Sign out everywhere, reset password (the link shown once), turn off two-step sign-in, disable or enable. */
export function AdministratorAccess({ admin, isMe, onDone }: AdminActionProps & { isMe: boolean }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const [link, setLink] = useState<IssuedLink | null>(null)
  const enable = useMutation(
    trpc.admins.enable.mutationOptions({
      onSuccess: async () => {
        onDone('Enabled: they can sign in again with their password.')
        await queryClient.invalidateQueries()
      },
    }),
  )

  return (
    <Panel id="access" heading="Sessions and access" className="danger-zone">
      <div className="actions-row">
        <SignOutEverywhere admin={admin} isMe={isMe} onDone={onDone} />
        {!isMe && admin.status !== 'disabled' && <ResetPassword admin={admin} onDone={onDone} onLink={setLink} />}
        {!isMe && admin.twoStep && <TurnOffTwoStep admin={admin} onDone={onDone} />}
        {!isMe &&
          (admin.status === 'disabled' ? (
            <button type="button" className="button secondary" disabled={enable.isPending} onClick={() => enable.mutate({ adminId: admin.id })}>
              {enable.isPending ? 'Enabling…' : 'Enable'}
            </button>
          ) : (
            <DisableAdministrator admin={admin} onDone={onDone} />
          ))}
      </div>
      {isMe && (
        <p className="hint">
          You cannot disable yourself, reset your own password or turn off your own two-step sign-in here; another admin can (My account has your
          own).
        </p>
      )}
      {enable.isError && <ErrorMessage title="Not enabled.">{errorMessage(enable.error)}</ErrorMessage>}
      {link && (
        <OneTimeLink
          id="reset-link"
          heading={link.invitation ? `New invitation for ${admin.email}` : `Password reset for ${admin.email}`}
          intro={
            <p>
              The link works until <Time value={link.expiresAt} />.
            </p>
          }
          label={link.invitation ? 'Invitation link' : 'Password-reset link'}
          url={link.url}
          onDone={() => setLink(null)}
        />
      )}
    </Panel>
  )
}
