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
              {limits.debitAmount && <AmountLimit verb="Debit" amount={limits.debitAmount} />}
              {limits.receiveAmount && <AmountLimit verb="Receive" amount={limits.receiveAmount} />}
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

function AmountLimit({ verb, amount }: { verb: string; amount: Parameters<typeof formatAmount>[0] }) {
  return (
    <li>
      {verb} at most {formatAmount(amount)}{' '}
      <span className="muted">
        (value {amount.value}, scale {amount.assetScale})
      </span>
    </li>
  )
}
