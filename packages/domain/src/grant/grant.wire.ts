import { z } from 'zod'
import { GnapError, zodToGnap } from '../errors'
import { serverUrl, type GnapConfig } from '../config/config'
import type { IssuedToken } from '../access-token/access-token.repo'
import { AccessListSchema, type AccessItem } from '../access/access.wire'
import { isLoopbackHost } from '../client/wallet-address'
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
  access_token: z.strictObject({ access: AccessListSchema }),
  // Checked below, not here: an absent or malformed client is invalid_client, not invalid_request (docs/protocol.md §2.1 step 2).
  client: z.unknown().optional(),
  interact: InteractRequestSchema.optional(),
  subject: z.unknown().optional(),
})

export interface GrantRequest {
  access: AccessItem[]
  /** One of the three forms of auth-server.yaml 1.3.0 (docs/protocol.md §4.5). */
  client: ClientForm
  interact: z.infer<typeof InteractRequestSchema> | null
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
  if ('subject' in json) {
    // Subject (identity) requests are not offered by this server yet: refused rather than half-served.
    throw new GnapError('invalid_request', 'subject requests are not supported')
  }
  if (!('access_token' in json)) throw new GnapError('invalid_request', 'access_token is required')
  const parsed = GrantRequestSchema.safeParse(json)
  if (!parsed.success) throw zodToGnap(parsed.error)
  const client = parseClientForm(parsed.data.client)
  return { access: parsed.data.access_token.access, client, interact: parsed.data.interact ?? null }
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

export interface GrantResponseJson {
  access_token?: AccessTokenJson
  continue: ContinueJson
  interact?: { redirect: string; finish: string }
}

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
