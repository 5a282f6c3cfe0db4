'use client'

import { useRef, useState } from 'react'
import { useTRPC } from '../../../_lib/trpc'
import { formatDateTime } from '../../../_lib/format'
import { DangerAction } from '../../../_components/danger-action'
import type { WebhookEndpoint } from '../webhook-parts'
import { NOT_FOUND, plural } from './endpoint-words'

/** A new secret, after a confirmation; the old one keeps signing for the overlap, so the receiver can switch. */
export function RotateSecret({ endpoint: e, onRotated }: { endpoint: WebhookEndpoint; onRotated(secret: string, overlap: string): void }) {
  const trpc = useTRPC()
  const hoursRef = useRef<HTMLInputElement>(null)
  const [hours, setHours] = useState('24')
  const [invalid, setInvalid] = useState(false)
  const overlapHours = /^\d{1,3}$/.test(hours.trim()) ? Number(hours.trim()) : NaN
  const valid = Number.isInteger(overlapHours) && overlapHours >= 0 && overlapHours <= 168
  return (
    <>
      <h3>Rotate the signing secret</h3>
      <p className="hint">Do this when the secret may have leaked. The new secret is shown once.</p>
      <div className="field">
        <label htmlFor="overlap-hours">Hours the old secret keeps working</label>
        <input
          id="overlap-hours"
          ref={hoursRef}
          type="number"
          inputMode="numeric"
          min={0}
          max={168}
          step={1}
          value={hours}
          onChange={(ev) => {
            setHours(ev.target.value)
            setInvalid(false)
          }}
          aria-describedby={invalid ? 'overlap-hours-hint overlap-hours-error' : 'overlap-hours-hint'}
          aria-invalid={invalid ? 'true' : undefined}
        />
        <span className="hint" id="overlap-hours-hint">
          From 0 to 168 (a week). Meanwhile every delivery carries a signature with each secret, so your receiver keeps verifying while you give it
          the new one. 0 stops the old secret at once.
        </span>
        {invalid && (
          <span className="error-text" id="overlap-hours-error" role="alert">
            Give a whole number of hours from 0 to 168.
          </span>
        )}
      </div>
      <div className="filter-actions">
        <DangerAction
          words={['Rotate secret', 'Rotate the signing secret?', 'Rotating\u2026']}
          canOpen={() => {
            if (!valid) {
              setInvalid(true)
              hoursRef.current?.focus()
            }
            return valid
          }}
          mutation={trpc.webhooks.rotateSecret.mutationOptions()}
          input={() => ({ id: e.id, overlapHours })}
          // The answer holds the secret: the page keeps it only until "I have stored the secret", not in the query client.
          forget
          onSuccess={(r) => {
            const until = r.endpoint.previousSecretUntil
            onRotated(
              r.secret,
              // The server gives previousSecretUntil only while the old secret still signs.
              until
                ? `Until ${formatDateTime(until)} each delivery is signed with both the old and the new secret: give your receiver the new one before then.`
                : 'The old secret no longer signs anything: give your receiver the new one now.',
            )
          }}
          invalidate={{ queryKey: trpc.webhooks.pathKey() }}
          notFound={NOT_FOUND}
        >
          <p>
            A new secret signs every delivery to <code>{e.url}</code> from now on.{' '}
            {overlapHours > 0
              ? `The current one also signs them for ${plural(overlapHours, 'hour')}, then stops.`
              : 'The current one stops at once: deliveries fail to verify until your receiver has the new one.'}
          </p>
        </DangerAction>
      </div>
    </>
  )
}
