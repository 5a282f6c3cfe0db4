import { formatSeconds, sentenceCase } from '../../../_lib/format'
import { Time } from '../../../_components/ui'
import type { GrantDetail } from './grant-words'
import { Panel } from '../../../_components/detail-page'

export function Interaction({ interaction: i }: { interaction: GrantDetail['interaction'] }) {
  return (
    <Panel id="interaction" heading="Owner's consent">
      {!i ? (
        <p>No interaction: the grant was issued without asking the resource owner.</p>
      ) : (
        <dl className="facts">
          <dt>Outcome</dt>
          <dd>
            <strong>{sentenceCase(i.outcome)}</strong>
          </dd>
          <dt>Decided</dt>
          <dd>
            {i.decidedAt ? (
              <>
                <Time value={i.decidedAt} />
                <span className="cell-sub">
                  {i.decidedBy ? `by ${i.decidedBy.name} (${i.decidedBy.email}) on the consent screen` : 'through the identity provider'}
                </span>
              </>
            ) : (
              <span className="muted">No decision</span>
            )}
          </dd>
          <dt>Started with</dt>
          <dd>{i.startModes.length ? i.startModes.join(', ') : <span className="muted">—</span>}</dd>
          <dt>Back at the client</dt>
          <dd>
            {i.finishedAt ? (
              <>
                <Time value={i.finishedAt} />
                {i.finishMethod && i.finishUri && (
                  <span className="cell-sub">
                    by {i.finishMethod} to {i.finishUri}
                  </span>
                )}
              </>
            ) : i.finishMethod ? (
              <span className="muted">
                Not yet ({i.finishMethod} to {i.finishUri ?? 'the client'})
              </span>
            ) : (
              <span className="muted">The client polls instead (no finish URI)</span>
            )}
          </dd>
          <dt>Reference used</dt>
          <dd>
            <Time value={i.refUsedAt} empty="Not yet" />
          </dd>
          <dt>Link valid until</dt>
          <dd>
            <Time value={i.expiresAt} />
            <span className="cell-sub">Open for {formatSeconds((i.expiresAt.getTime() - i.createdAt.getTime()) / 1000)} from the request</span>
          </dd>
        </dl>
      )}
    </Panel>
  )
}
