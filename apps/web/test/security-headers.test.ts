// Web security headers over HTTP against `next start`: every kind of response carries them, from the
// one place that sets them (src/server/edge/security-headers.ts), and pages rendered by Next carry the per-request script
// nonce; answers that are no document (GNAP JSON, 204s, redirects) carry the same policy without one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type RunningServer } from '@gnap/test-support'

const common = {
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
}

function csp(res: Response): Map<string, string[]> {
  const directives = new Map<string, string[]>()
  for (const part of (res.headers.get('content-security-policy') ?? '').split(';')) {
    const [name, ...values] = part.trim().split(/\s+/)
    if (name) directives.set(name, values)
  }
  return directives
}

const nonceOf = (res: Response) =>
  /^'nonce-(.+)'$/.exec(
    csp(res)
      .get('script-src')
      ?.find((v) => v.startsWith("'nonce-")) ?? '',
  )?.[1] ?? null

/**
 * `document`: the answer is a page (its CSP carries this response's script nonce); otherwise it renders no script
 * (GNAP JSON, a 204, a redirect) and its policy carries no nonce, so 'strict-dynamic' allows no script at all.
 */
function expectSecurityHeaders(res: Response, opts: { https: boolean; document: boolean }) {
  for (const [name, value] of Object.entries(common)) expect(res.headers.get(name), name).toBe(value)
  const policy = csp(res)
  expect(policy.get('default-src')).toEqual(["'self'"])
  expect(policy.get('frame-ancestors')).toEqual(["'none'"])
  expect(policy.get('base-uri')).toEqual(["'none'"])
  expect(policy.get('object-src')).toEqual(["'none'"])
  expect(policy.get('form-action')).toEqual(["'self'", 'https:', 'http:'])
  expect(policy.get('script-src')).toContain("'strict-dynamic'")
  expect(policy.get('script-src')).not.toContain("'unsafe-inline'")
  expect(policy.get('script-src')).not.toContain("'unsafe-eval'")
  if (opts.document) expect(nonceOf(res)).toMatch(/^[A-Za-z0-9+/]{22}==$/)
  else expect(policy.get('script-src')?.filter((v) => v.startsWith("'nonce-"))).toEqual([])
  if (opts.https) {
    expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000')
    expect(policy.has('upgrade-insecure-requests')).toBe(true)
  } else {
    expect(res.headers.get('strict-transport-security')).toBeNull()
    expect(policy.has('upgrade-insecure-requests')).toBe(false)
  }
}

describe.each([
  { https: false, env: {} },
  // The public URL decides, not the socket: TLS ends at a proxy in front.
  { https: true, env: { AUTH_SERVER_URL: 'https://as.example/' } },
])('security headers (AUTH_SERVER_URL https: $https)', ({ https, env }) => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer(env)
  })
  afterAll(async () => {
    await server?.stop()
  })

  it('are on a GNAP JSON answer', async () => {
    const res = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    expect(res.status).toBe(400)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expectSecurityHeaders(res, { https, document: false })
  })

  it('are on an empty 204-style and a 405 answer', async () => {
    expectSecurityHeaders(await fetch(`${server.url}introspect`), { https, document: false })
  })

  // The GNAP JSON endpoints skip the proxy (src/proxy.ts `config`): the answers they give to methods they do not
  // take come from the route files themselves, and must carry the headers as well.
  it.each([
    ['PUT', 'continue/00000000-0000-4000-8000-000000000000', 'POST, DELETE, OPTIONS'],
    ['PATCH', 'token/00000000-0000-4000-8000-000000000000', 'POST, DELETE, OPTIONS'],
    ['DELETE', 'introspect', 'POST, OPTIONS'],
    ['PUT', '', 'POST, OPTIONS'],
  ])('are on the 405 a GNAP endpoint gives to %s /%s, with Allow and a GNAP error body', async (method, path, allow) => {
    const res = await fetch(`${server.url}${path}`, { method })
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe(allow)
    expect(await res.json()).toMatchObject({ error: { code: 'invalid_request' } })
    expectSecurityHeaders(res, { https, document: false })
  })

  it('are on the OPTIONS answer of a GNAP endpoint, and on the redirect of GET /', async () => {
    const options = await fetch(`${server.url}token/00000000-0000-4000-8000-000000000000`, { method: 'OPTIONS' })
    expect(options.status).toBe(204)
    expect(options.headers.get('allow')).toBe('POST, DELETE, OPTIONS')
    expectSecurityHeaders(options, { https, document: false })
    const root = await fetch(server.url, { redirect: 'manual' })
    expect(root.status).toBe(307)
    expect(root.headers.get('location')).toBe('/admin')
    expectSecurityHeaders(root, { https, document: false })
  })

  it('are on a front-channel HTML error page', async () => {
    // A browser's Accept: the page (docs/protocol.md §2.8 "Pages or JSON").
    const accept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'
    const res = await fetch(`${server.url}interact/unknown/unknown`, { redirect: 'manual', headers: { accept } })
    expect(res.status).toBe(400)
    expect(res.headers.get('content-type')).toMatch(/^text\/html/)
    expectSecurityHeaders(res, { https, document: true })
  })

  it("are on an unknown path (Next's 404 page), whose scripts all carry this response's nonce", async () => {
    const res = await fetch(`${server.url}no/such/path`)
    expect(res.status).toBe(404)
    expectSecurityHeaders(res, { https, document: true })
    const html = await res.text()
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0])
    expect(scripts.length).toBeGreaterThan(0)
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonceOf(res)}"`)
  })

  it('are on a malformed path refused before routing, and on static assets', async () => {
    const bad = await fetch(`${server.url}continue/%E0%A4%A`, { method: 'POST' })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ error: { code: 'invalid_request' } })
    expectSecurityHeaders(bad, { https, document: true })
    const page = await (await fetch(`${server.url}no/such/path`)).text()
    const asset = /src="(\/_next\/static\/[^"]+\.js)"/.exec(page)?.[1]
    expect(asset).toBeDefined()
    const res = await fetch(new URL(asset!, server.url))
    expect(res.status).toBe(200)
    expectSecurityHeaders(res, { https, document: true })
  })

  it('use a fresh nonce for every response', async () => {
    const nonces = new Set<string | null>()
    for (let i = 0; i < 5; i++) nonces.add(nonceOf(await fetch(`${server.url}no/such/path`)))
    expect(nonces.size).toBe(5)
  })
})
