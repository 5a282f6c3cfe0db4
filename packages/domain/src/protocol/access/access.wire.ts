import { z } from 'zod'
import { canonicalJson } from './access-rules'
import { isValidInterval } from './interval'
import { canonicalWalletAddress } from '../owner/canonical-wallet-address'

// Access items as the contract defines them (auth-server.yaml components.schemas: access, access-item,
// access-incoming, access-outgoing, access-quote, limits-outgoing, amount, receiver, interval) with the value
// rules of docs/protocol.md §6. Messages end up in `{"error":{"code":"invalid_request","description":…}}` next to the
// issue's path, so they are short and never echo client values (except a field name of plain characters).

const UINT64_MAX = 18446744073709551615n
/** An asset code: an ISO 4217 code such as USD, or another short code of upper-case letters and digits. */
const ASSET_CODE = /^[A-Z0-9]{1,16}$/

const requiredOr = (message: string) => (iss: { input: unknown }) => (iss.input === undefined ? 'is required' : message)

// unevaluatedProperties: false — unknown fields are refused, not stripped.
const strictObjectError = (what: string) => (iss: { code?: string; input: unknown; keys?: string[] }) => {
  if (iss.code === 'unrecognized_keys') {
    const key = iss.keys?.[0]
    return key !== undefined && /^[A-Za-z0-9_-]{1,40}$/.test(key) ? `unknown field "${key}" in ${what}` : `unknown field in ${what}`
  }
  return iss.input === undefined ? 'is required' : `${what} must be an object`
}

/** Absolute http(s) URL with a host, no whitespace; parseable by the WHATWG URL parser. */
const isHttpUrl = (s: string): boolean => {
  if (!/^https?:\/\/[^/?#\s]+[^\s]*$/.test(s) || /[\u0000-\u001f\u007f]/.test(s)) return false
  if (!URL.canParse(s)) return false
  return new URL(s).hostname !== ''
}

/**
 * An access item's `identifier`: a wallet address URL or a resource URL below one, brought to its canonical form
 * here, where the request is parsed, and stored so (docs/protocol.md §6, "Wallet address identifiers"). Credentials,
 * a query or a fragment are refused: a wallet address has none.
 */
export const IdentifierSchema = z
  .string({ error: requiredOr('must be a string') })
  .refine(isHttpUrl, { error: 'must be an absolute http(s) URL', abort: true })
  .refine((s) => canonicalWalletAddress(s) !== null, { error: 'must be a URL without credentials, query or fragment', abort: true })
  .overwrite((s) => canonicalWalletAddress(s) ?? s)

export const AmountSchema = z.strictObject(
  {
    // auth-server.yaml amount.value: format uint64, as a decimal string. "0" is a valid uint64.
    value: z
      .string({ error: requiredOr('must be a string of digits') })
      // abort: BigInt() below must only ever see digits.
      .regex(/^(0|[1-9][0-9]{0,19})$/, {
        error: 'must be an unsigned 64-bit integer as a decimal string',
        abort: true,
      })
      .refine((v) => BigInt(v) <= UINT64_MAX, { error: 'must not exceed 18446744073709551615' }),
    // Stricter than the contract (a free string): it is printed next to the amount on the consent screen, so only
    // what reads as an asset code (docs/protocol.md §6).
    assetCode: z.string({ error: requiredOr('must be a string') }).regex(ASSET_CODE, { error: 'must be 1 to 16 upper-case letters or digits' }),
    assetScale: z
      .number({ error: requiredOr('must be an integer from 0 to 255') })
      .int({ error: 'must be an integer from 0 to 255' })
      .min(0, { error: 'must be an integer from 0 to 255' })
      .max(255, { error: 'must be an integer from 0 to 255' }),
  },
  { error: strictObjectError('amount') },
)

// auth-server.yaml receiver: format uri, pattern ^(https|http)://(.+)/incoming-payments/(.+)$
const RECEIVER = /^(https|http):\/\/(.+)\/incoming-payments\/(.+)$/

export const LimitsSchema = z
  .strictObject(
    {
      receiver: z
        .string({ error: 'must be a string' })
        .refine((s) => RECEIVER.test(s) && isHttpUrl(s), { error: 'must be an incoming payment URL' })
        .optional(),
      interval: z.string({ error: 'must be a string' }).refine(isValidInterval, { error: 'must be an ISO 8601 repeating interval' }).optional(),
      debitAmount: AmountSchema.optional(),
      receiveAmount: AmountSchema.optional(),
    },
    { error: strictObjectError('limits') },
  )
  // limits-outgoing: anyOf with neither amount, debitAmount alone or receiveAmount alone.
  .refine((l) => l.debitAmount === undefined || l.receiveAmount === undefined, {
    error: 'only one access amount allowed',
  })

export const ACCESS_TYPES = ['incoming-payment', 'outgoing-payment', 'quote'] as const
const INCOMING_ACTIONS = ['create', 'complete', 'read', 'read-all', 'list', 'list-all'] as const
const OUTGOING_ACTIONS = ['create', 'read', 'read-all', 'list', 'list-all'] as const
const QUOTE_ACTIONS = ['create', 'read', 'read-all'] as const

// The contract does not require a non-empty `actions`, but an item without an action grants nothing and would
// still be shown to the owner for consent, so we refuse it.
const actionsSchema = <const T extends readonly [string, ...string[]]>(type: string, actions: T) =>
  z
    .array(z.enum(actions, { error: `action not allowed for ${type}` }), {
      error: requiredOr('must be an array of actions'),
    })
    .min(1, { error: 'at least one action is required' })
    .refine((a) => new Set(a).size === a.length, { error: 'actions must be unique' })

export const IncomingAccessSchema = z.strictObject(
  {
    type: z.literal('incoming-payment'),
    actions: actionsSchema('incoming-payment', INCOMING_ACTIONS),
    identifier: IdentifierSchema.optional(),
  },
  { error: strictObjectError('incoming-payment access') },
)

export const OutgoingAccessSchema = z.strictObject(
  {
    type: z.literal('outgoing-payment'),
    actions: actionsSchema('outgoing-payment', OUTGOING_ACTIONS),
    // Required by access-outgoing: the RO's wallet address.
    identifier: IdentifierSchema,
    limits: LimitsSchema.optional(),
  },
  { error: strictObjectError('outgoing-payment access') },
)

export const QuoteAccessSchema = z.strictObject(
  {
    type: z.literal('quote'),
    actions: actionsSchema('quote', QUOTE_ACTIONS),
  },
  { error: strictObjectError('quote access') },
)

/** The message of an access item that is not an object, or of no known type. */
export const accessItemError = (iss: { input: unknown }) =>
  typeof iss.input !== 'object' || iss.input === null || Array.isArray(iss.input)
    ? 'access item must be an object'
    : 'type must be incoming-payment, outgoing-payment or quote'

export const AccessItemSchema = z.discriminatedUnion('type', [IncomingAccessSchema, OutgoingAccessSchema, QuoteAccessSchema], {
  error: accessItemError,
})

// auth-server.yaml access: maxItems 3, uniqueItems (deep equality; key order does not matter, array order does).
export const AccessListSchema = z
  .array(AccessItemSchema, { error: requiredOr('must be an array of access items') })
  .min(1, { error: 'at least one access item is required' })
  .max(3, { error: 'at most 3 access items are allowed' })
  .refine((items) => new Set(items.map(canonicalJson)).size === items.length, {
    error: 'access items must be unique',
  })

export type Amount = z.infer<typeof AmountSchema>
export type Limits = z.infer<typeof LimitsSchema>
export type IncomingAccess = z.infer<typeof IncomingAccessSchema>
export type OutgoingAccess = z.infer<typeof OutgoingAccessSchema>
export type QuoteAccess = z.infer<typeof QuoteAccessSchema>
export type AccessItem = z.infer<typeof AccessItemSchema>
export type AccessType = AccessItem['type']
export type AccessAction = AccessItem['actions'][number]
