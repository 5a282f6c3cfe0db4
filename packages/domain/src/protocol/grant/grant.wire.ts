import { z } from 'zod'
import { GnapError, zodToGnap } from '../../kernel/errors'
import { serverUrl, type GnapConfig } from '../../kernel/config/config'
import type { IssuedToken } from '../access-token/access-token.repo'
import { AccessListSchema, type AccessItem } from '../access/access.wire'
import { isAllowedWalletAddressUrl, isLoopbackHost } from '../client/wallet-address'
import { canonicalWalletAddress } from '../owner/canonical-wallet-address'
import { parseClientForm, type ClientForm } from '../client/client-instance'

// Wire shapes of post-request and post-continue (auth-server.yaml). Spelling as the spec writes it.

/** https, or http to a loopback host. True for what is no URL at all: the URL's own check reports that. */
function isHttpsOrLoopback(uri: string): boolean {
  if (!URL.canParse(uri)) return true
  const url = new URL(uri)
  return url.protocol !== 'http:' || isLoopbackHost(url.hostname)
}

const InteractRequestSchema = z.strictObject({
  start: z.array(z.string()).min(1, 'interact.start must name at least one method'),
  finish: z
    .strictObject({
      method: z.literal('redirect'),
      uri: z
        .url({ protocol: /^https?$/, error: 'interact.finish.uri must be an absolute http(s) URL' })
        // docs/protocol.md §2.1 step 2: the owner's browser is sent there with the interact_ref, so plain http only
        // where nothing crosses a network (a client on the owner's own machine).
        .refine(isHttpsOrLoopback, {
          error: 'interact.finish.uri must be https unless its host is loopback',
        }),
      nonce: z.string().min(1).max(256),
    })
    .optional(),
})

const GrantRequestSchema = z.strictObject({
  // Optional only in a subject request (the contract's "with Subject" body); checked in parseGrantRequest.
  access_token: z.strictObject({ access: AccessListSchema }).optional(),
  // Checked below, not here: an absent or malformed client is invalid_client, not invalid_request (docs/protocol.md §2.1 step 2).
  client: z.unknown().optional(),
  interact: InteractRequestSchema.optional(),
  // Checked by parseSubjectRequest (docs/protocol.md §2.1, Subject requests).
  subject: z.unknown().optional(),
})

export interface GrantRequest {
  /** Empty only in a subject request without `access_token`. */
  access: AccessItem[]
  /** One of the three forms of auth-server.yaml 1.3.0 (docs/protocol.md §4.5). */
  client: ClientForm
  interact: z.infer<typeof InteractRequestSchema> | null
  /** The wallet address URLs of `subject.sub_ids`, as sent, in order; absent when the request has no `subject`. */
  subject?: string[]
}

/**
 * At most this many subject identifiers in one request. The contract allows one (`subject.sub_ids` maxItems 1 in
 * auth-server.yaml and id-provider.yaml), so every answer that echoes them stays within it (docs/protocol.md §2.1).
 */
export const MAX_SUBJECT_IDS = 1

const SubjectIdSchema = z.strictObject({
  id: z.string({ error: 'must be a string' }),
  format: z.string({ error: 'must be a string' }),
})

const SubjectRequestSchema = z.strictObject({
  sub_ids: z.array(SubjectIdSchema, { error: 'must be an array of subject identifiers' }),
})

/**
 * The wallet address URLs of a request's `subject` (docs/protocol.md §2.1, RFC 9635 §2.2): each `{format: "uri",
 * id: <wallet address URL>}`, at least one, no two naming the same wallet address (compared as the owners' wallet
 * addresses are, protocol/owner/canonical-wallet-address.ts), at most MAX_SUBJECT_IDS.
 * @throws GnapError invalid_request
 */
export function parseSubjectRequest(subject: unknown): string[] {
  if (typeof subject !== 'object' || subject === null || Array.isArray(subject)) {
    throw new GnapError('invalid_request', 'subject must be an object with sub_ids')
  }
  const parsed = SubjectRequestSchema.safeParse(subject)
  if (!parsed.success) {
    const within = (parsed.error.issues[0]?.path.length ?? 0) > 0
    throw new GnapError('invalid_request', `subject${within ? '.' : ': '}${zodToGnap(parsed.error).message}`)
  }
  const subIds = parsed.data.sub_ids
  if (subIds.length === 0) throw new GnapError('invalid_request', 'subject.sub_ids must name at least one wallet address')
  subIds.forEach(({ id, format }, i) => {
    if (format !== 'uri')
      throw new GnapError('invalid_request', `subject.sub_ids.${i}.format: only "uri" is supported, got ${JSON.stringify(format)}`)
    // The scheme allowed by the server's settings is checked with the request (protocol/grant/request-grant.ts).
    if (!isAllowedWalletAddressUrl(id, true)) {
      throw new GnapError('invalid_request', `subject.sub_ids.${i}.id must be a wallet address URL (http(s), no credentials, query or fragment)`)
    }
    // The owner confirms exactly what the client gets back: the address in the one form the consent check compares
    // (lower-case host, no default port, no dot segments or escapes, no trailing slash), so no other spelling of it
    // can be confirmed and read as something else by whoever receives the answer.
    const normal = canonicalWalletAddress(id)
    if (normal !== id) {
      throw new GnapError('invalid_request', `subject.sub_ids.${i}.id must be written in its normal form${normal ? `: ${normal}` : ''}`)
    }
  })
  const seen = new Set<string>()
  for (const { id } of subIds) {
    const key = canonicalWalletAddress(id) ?? id
    if (seen.has(key)) throw new GnapError('invalid_request', `subject.sub_ids names ${id} more than once`)
    seen.add(key)
  }
  if (subIds.length > MAX_SUBJECT_IDS) {
    throw new GnapError('invalid_request', `subject.sub_ids may name at most ${MAX_SUBJECT_IDS} wallet address${MAX_SUBJECT_IDS === 1 ? '' : 'es'}`)
  }
  return subIds.map((s) => s.id)
}

/**
 * Parses the body of POST / (docs/protocol.md §2.1 step 2). A bad `client` is invalid_client 400; every other
 * shape error is invalid_request 400.
 * @throws GnapError invalid_request | invalid_client
 */
export function parseGrantRequest(json: unknown): GrantRequest {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new GnapError('invalid_request', 'request body must be a JSON object')
  }
  if (!('access_token' in json) && !('subject' in json)) throw new GnapError('invalid_request', 'access_token is required')
  const parsed = GrantRequestSchema.safeParse(json)
  if (!parsed.success) throw zodToGnap(parsed.error)
  const subject = 'subject' in json ? parseSubjectRequest(parsed.data.subject) : undefined
  const client = parseClientForm(parsed.data.client)
  const interact = parsed.data.interact ?? null
  if (subject) requireInteractForSubject(interact)
  return { access: parsed.data.access_token?.access ?? [], client, interact, ...(subject ? { subject } : {}) }
}

/**
 * A subject request always needs the owner (docs/protocol.md §2.1, Subject requests): only they can confirm that
 * they control the wallet address, so `interact` with a redirect start is required.
 * @throws GnapError invalid_request
 */
function requireInteractForSubject(interact: GrantRequest['interact']): void {
  if (!interact || !interact.start.includes('redirect')) {
    throw new GnapError('invalid_request', 'a subject request needs interaction: interact.start must include "redirect"')
  }
}

const ContinueRequestSchema = z.strictObject({ interact_ref: z.string().min(1).max(256).optional() })

/**
 * Parses the body of POST /continue/{id}: none, `{}` or `{interact_ref}` (docs/protocol.md §2.2 step 1).
 * @throws GnapError invalid_request
 */
export interface ContinueRequest {
  /** The interaction reference the client got at its finish URI; null for a poll. */
  interactRef: string | null
}

export function parseContinueRequest(json: unknown): ContinueRequest {
  if (json === undefined) return { interactRef: null }
  const parsed = ContinueRequestSchema.safeParse(json)
  if (!parsed.success) throw zodToGnap(parsed.error)
  return { interactRef: parsed.data.interact_ref ?? null }
}

// Response builders (auth-server.yaml components.schemas).

export interface AccessTokenJson {
  value: string
  manage: string
  expires_in: number
  access: AccessItem[]
}

export interface ContinueJson {
  access_token: { value: string }
  uri: string
  wait?: number
}

export interface SubjectJson {
  sub_ids: { id: string; format: 'uri' }[]
}

export interface GrantResponseJson {
  access_token?: AccessTokenJson
  subject?: SubjectJson
  continue: ContinueJson
  interact?: { redirect: string; finish: string }
}

/** `subject` of an answer (auth-server.yaml, id-provider.yaml components.schemas.subject). */
export const toSubjectJson = (subIds: string[]): SubjectJson => ({ sub_ids: subIds.map((id) => ({ id, format: 'uri' })) })

export function toAccessTokenJson(config: GnapConfig, token: IssuedToken, access: AccessItem[]): AccessTokenJson {
  return {
    value: token.value,
    manage: serverUrl(config, 'token', token.managementId),
    expires_in: token.expiresIn,
    access,
  }
}

export function toContinueJson(config: GnapConfig, continueId: string, continueToken: string, wait?: number): ContinueJson {
  return {
    access_token: { value: continueToken },
    uri: serverUrl(config, 'continue', continueId),
    ...(wait !== undefined ? { wait } : {}),
  }
}
