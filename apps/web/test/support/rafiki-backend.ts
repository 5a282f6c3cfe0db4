// The calls a Rafiki backend makes to its authorization server, replayed as its source shows them (docs/protocol.md
// §2.6 and §2.21), for the HTTP suites that play that backend.
import { expect } from 'vitest'
import { assertMatchesSpec } from '@gnap/domain/testing'

/**
 * Introspection as the backend's token-introspection client sends it: axios's defaults for a JSON body, no
 * Authorization, one access item of one action built as its middleware builds it (`identifier` undefined, so absent
 * from the JSON, when it has none: the outgoing-payment grant check).
 */
export async function introspectAsTheBackend(url: string, token: string, type: string, action: string, identifier?: string) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { accept: 'application/json, text/plain, */*', 'content-type': 'application/json', 'user-agent': 'axios/1.16.0' },
    body: JSON.stringify({ access_token: token, access: [{ type, actions: [action], identifier }] }),
  })
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> }
}

/** What the backend's middleware accepts: a 200 that token-introspection.yaml allows. */
export function checkedAsTheBackend(got: { status: number; body: Record<string, unknown> }) {
  expect(got.status).toBe(200)
  assertMatchesSpec('token-introspection', '/', 'POST', 200, got.body)
  return got.body as { active: boolean; grant: string; access: Record<string, unknown>[]; client: unknown }
}
