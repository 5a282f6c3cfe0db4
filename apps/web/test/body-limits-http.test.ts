// The body reader's caps on the console's tRPC endpoint and the REST form (docs/protocol.md §2.18), against
// `next start`: a body over 64 KiB, declared or sent, is refused with 413 and JSON nested deeper than 32 levels with
// 400, each in its endpoint's own error shape, before any procedure runs. The GNAP endpoints' answers to the same
// bodies are pinned in hostile-input.test.ts and http-errors-grant.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type RunningServer } from '@gnap/test-support'

let server: RunningServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(async () => {
  await server?.stop()
})

const LARGE = JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(64 * 1024) })
const DEEP = '['.repeat(33) + ']'.repeat(33)

async function post(path: string, body: string) {
  const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  return { status: res.status, cache: res.headers.get('cache-control'), body: (await res.json()) as unknown }
}

describe('the console API (tRPC)', () => {
  it('refuses a body over the byte cap with 413', async () => {
    expect(await post('api/trpc/auth.signIn', LARGE)).toEqual({ status: 413, cache: 'no-store', body: { error: { message: 'request too large' } } })
  })

  it('refuses JSON nested too deep with 400', async () => {
    expect(await post('api/trpc/auth.signIn', DEEP)).toEqual({
      status: 400,
      cache: 'no-store',
      body: { error: { message: 'request nested too deep' } },
    })
  })
})

describe('the REST form', () => {
  it('refuses a body over the byte cap with 413', async () => {
    expect(await post('api/v1/clients/block', LARGE)).toEqual({
      status: 413,
      cache: 'no-store',
      body: { error: { code: 'PAYLOAD_TOO_LARGE', message: 'request too large' } },
    })
  })

  it('refuses JSON nested too deep with 400', async () => {
    expect(await post('api/v1/clients/block', DEEP)).toEqual({
      status: 400,
      cache: 'no-store',
      body: { error: { code: 'BAD_REQUEST', message: 'request nested too deep' } },
    })
  })
})
