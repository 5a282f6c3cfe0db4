import type { AccessAction, AccessItem, Limits, OutgoingAccess } from './access.wire'

// Pure rules about access items (docs/protocol.md §6). No I/O.

export interface InteractionRules {
  incomingPaymentInteraction: boolean
  quoteInteraction: boolean
  listAllInteraction: boolean
}

/**
 * docs/protocol.md §6 interaction rule (as the reference): an item skips interaction only if it is `incoming-payment`
 * with INCOMING_PAYMENT_INTERACTION false or `quote` with QUOTE_INTERACTION false, and has no `list-all` while
 * LIST_ALL_ACCESS_INTERACTION is true. `outgoing-payment` always needs it; one such item is enough.
 */
export function needsInteraction(items: readonly AccessItem[], rules: InteractionRules): boolean {
  return items.some((item) => itemNeedsInteraction(item, rules))
}

export function itemNeedsInteraction(item: AccessItem, rules: InteractionRules): boolean {
  const typeSkips = (item.type === 'incoming-payment' && !rules.incomingPaymentInteraction) || (item.type === 'quote' && !rules.quoteInteraction)
  if (!typeSkips) return true
  return rules.listAllInteraction && hasAction(item, 'list-all')
}

/**
 * An item a resource server asks about at introspection: an access item whose outgoing-payment `identifier` may be
 * left out (docs/protocol.md §2.6, as Rafiki's backend checks an outgoing-payment grant).
 */
export type RequestedAccess = Exclude<AccessItem, OutgoingAccess> | (Omit<OutgoingAccess, 'identifier'> & { identifier?: string | undefined })

/**
 * docs/protocol.md §6 introspection matching (reference behaviour): for each requested item, take the FIRST granted
 * item of the same type, and return it (the stored item, not the request) when
 * - every requested action is on it, requested `read` also satisfied by `read-all` and `list` by `list-all`;
 * - requested `limits`, if any, deep-equal the granted ones (key order ignored);
 * - the identifiers are equal when both sides have one.
 * Unmatched requested items are skipped. A granted item is returned once even if several requested items match
 * it (token-introspection.yaml access: uniqueItems).
 */
export function matchAccess(granted: readonly AccessItem[], requested: readonly RequestedAccess[]): AccessItem[] {
  const matched: AccessItem[] = []
  for (const req of requested) {
    const candidate = granted.find((g) => g.type === req.type)
    if (candidate && isSatisfiedBy(req, candidate) && !matched.includes(candidate)) matched.push(candidate)
  }
  return matched
}

function isSatisfiedBy(req: RequestedAccess, granted: AccessItem): boolean {
  const actionsOk = req.actions.every(
    (a) => hasAction(granted, a) || (a === 'read' && hasAction(granted, 'read-all')) || (a === 'list' && hasAction(granted, 'list-all')),
  )
  if (!actionsOk) return false

  const reqLimits = limitsOf(req)
  if (reqLimits !== undefined) {
    const grantedLimits = limitsOf(granted)
    if (grantedLimits === undefined || canonicalJson(reqLimits) !== canonicalJson(grantedLimits)) return false
  }

  const reqId = identifierOf(req)
  const grantedId = identifierOf(granted)
  return reqId === undefined || grantedId === undefined || reqId === grantedId
}

function hasAction(item: RequestedAccess, action: AccessAction): boolean {
  return (item.actions as readonly AccessAction[]).includes(action)
}

function limitsOf(item: RequestedAccess): Limits | undefined {
  return item.type === 'outgoing-payment' ? item.limits : undefined
}

function identifierOf(item: RequestedAccess): string | undefined {
  return item.type === 'quote' ? undefined : item.identifier
}

/**
 * JSON with object keys sorted at every depth; array order kept. Properties whose value is undefined are left out,
 * as JSON.stringify does, so `{a: 1, b: undefined}` and `{a: 1}` are equal.
 */
export function canonicalJson(value: unknown): string {
  return (JSON.stringify(sortKeys(value)) as string | undefined) ?? 'undefined'
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value !== null && typeof value === 'object') {
    // fromEntries defines own properties, so a "__proto__" key stays data instead of changing the prototype.
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    )
  }
  return value
}
