import { ACCESS_TYPE_LABEL, formatAmount } from '../../../_lib/format'
import type { GrantDetail } from './grant-words'

type AccessItemView = GrantDetail['accessItems'][number]

export function AccessItem({ access, index }: { access: AccessItemView; index: number }) {
  const { item, description } = access
  const headingId = `access-${index}`
  const limits = item.limits
  return (
    <article className="access-item" aria-labelledby={headingId}>
      <h3 id={headingId}>{description.title}</h3>
      <ul className="plain">
        {description.lines.map((line, i) => (
          <li key={i}>{line}</li>
        ))}
      </ul>
      <dl className="facts">
        <dt>Type</dt>
        <dd>
          {ACCESS_TYPE_LABEL[item.type] ?? item.type} <code>({item.type})</code>
        </dd>
        <dt>Actions</dt>
        <dd>
          {item.actions.map((a) => (
            <span key={a} className="tag">
              {a}
            </span>
          ))}
        </dd>
        <dt>Identifier</dt>
        <dd>{item.identifier ? <code>{item.identifier}</code> : <span className="muted">None: any account the resource server allows</span>}</dd>
        <dt>Limits</dt>
        <dd>
          {!limits || Object.keys(limits).length === 0 ? (
            <span className="muted">No limits</span>
          ) : (
            <ul className="plain" style={{ margin: 0 }}>
              {limits.debitAmount && (
                <li>
                  Debit at most {formatAmount(limits.debitAmount)}{' '}
                  <span className="muted">
                    (value {limits.debitAmount.value}, scale {limits.debitAmount.assetScale})
                  </span>
                </li>
              )}
              {limits.receiveAmount && (
                <li>
                  Receive at most {formatAmount(limits.receiveAmount)}{' '}
                  <span className="muted">
                    (value {limits.receiveAmount.value}, scale {limits.receiveAmount.assetScale})
                  </span>
                </li>
              )}
              {limits.receiver && (
                <li>
                  Only to <code>{limits.receiver}</code>
                </li>
              )}
              {limits.interval && (
                <li>
                  Interval <code>{limits.interval}</code>
                </li>
              )}
            </ul>
          )}
        </dd>
      </dl>
    </article>
  )
}
