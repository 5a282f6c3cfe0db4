// INTROSPECTION_SECRET and IDENTITY_SERVER_SECRET as lists (docs/protocol.md §7): during a rotation the server takes
// every entry, and nothing else; in production each entry must have at least 32 characters.
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type RunningServer } from '@gnap/test-support'

const OLD_INTROSPECTION = 'old-introspection-secret-0123456789-abc'
const NEW_INTROSPECTION = 'new-introspection-secret-0123456789-xyz'
const OLD_IDP = 'old-idp-secret-0123456789-0123456789-abc'
const NEW_IDP = 'new-idp-secret-0123456789-0123456789-xyz'

describe('secrets being rotated', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({
      INTROSPECTION_SECRET: `${OLD_INTROSPECTION},${NEW_INTROSPECTION}`,
      IDENTITY_SERVER_SECRET: `${OLD_IDP}, ${NEW_IDP}`,
    })
  })
  afterAll(() => server?.stop())

  const introspect = (secret: string) =>
    fetch(`${server.url}introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify({ access_token: 'no-such-token' }),
    })
  // An interaction that does not exist: 404 past the secret check, 401 before it.
  const lookup = (secret: string) => fetch(`${server.url}grant/${randomUUID()}/${'A'.repeat(32)}`, { headers: { 'x-idp-secret': secret } })

  it('accepts each introspection secret of the list, and not the list itself', async () => {
    for (const secret of [OLD_INTROSPECTION, NEW_INTROSPECTION]) expect((await introspect(secret)).status).toBe(200)
    for (const secret of [`${OLD_INTROSPECTION},${NEW_INTROSPECTION}`, `${NEW_INTROSPECTION}x`]) expect((await introspect(secret)).status).toBe(401)
  })

  it('accepts each identity-provider secret of the list, and not the list itself', async () => {
    for (const secret of [OLD_IDP, NEW_IDP]) expect((await lookup(secret)).status).toBe(404)
    for (const secret of [`${OLD_IDP}, ${NEW_IDP}`, `${OLD_IDP}x`]) expect((await lookup(secret)).status).toBe(401)
  })
})

describe('production secrets', () => {
  it('does not start with an introspection secret shorter than 32 characters', async () => {
    await expect(startServer({ NODE_ENV: 'production', INTROSPECTION_SECRET: 'only-twenty-chars-xx' })).rejects.toThrow(
      /INTROSPECTION_SECRET: .*at least 32 characters/,
    )
  }, 90_000)
})
