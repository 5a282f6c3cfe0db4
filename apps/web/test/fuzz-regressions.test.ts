// Answers the fuzz suite (fuzz.test.ts) found wrong, each kept as a plain regression test over raw HTTP.
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type RunningServer } from '@gnap/test-support'
import { PUBLIC_FILES } from '../src/server/pages/public-files'

let server: RunningServer

beforeAll(async () => {
  server = await startServer()
})

afterAll(async () => {
  await server?.stop()
})

/** One request with node:http, which (unlike fetch) sends any method. */
function raw(method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: server.port, method, path, headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (text += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

describe('methods the Fetch standard forbids (TRACE; Node refuses CONNECT and TRACK itself)', () => {
  it.each([
    ['TRACE', '/'],
    ['TRACE', '/introspect'],
    ['TRACE', '/continue/abc'],
    ['TRACE', '/interact/a/b'],
    ['TRACE', '/admin'],
    ['TRACE', '/token/00000000-0000-4000-8000-000000000000'],
    ['TRACE', '/no-such-page'],
  ])('%s %s answers 405 with a GNAP error body and the security headers, not a 500', async (method, path) => {
    const res = await raw(method, path, { cookie: 'gnap_admin=secret-cookie' })
    expect(res.status).toBe(405)
    expect(res.headers['content-type']).toBe('application/json')
    expect(JSON.parse(res.text)).toEqual({ error: { code: 'invalid_request', description: `method not allowed: ${method}` } })
    expect(res.headers['x-content-type-options']).toBe('nosniff')
    expect(res.headers['cache-control']).toBe('no-store')
    // TRACE never reflects the request (its cookie least of all).
    expect(res.text).not.toContain('secret-cookie')
  })
})

describe("the console's API (/api/trpc) answers JSON", () => {
  it.each<[string, Record<string, string>]>([
    ['no content type', {}],
    ['text/plain', { 'content-type': 'text/plain' }],
    ['a form', { 'content-type': 'application/x-www-form-urlencoded' }],
  ])('a POST with %s is refused as application/json, not text/plain', async (_name, headers) => {
    const res = await raw('POST', '/api/trpc/auth.signIn', headers, '{"email":"a@b.c","password":"x"}')
    expect(res.status).toBeGreaterThanOrEqual(400)
    expect(res.status).toBeLessThan(500)
    expect(res.headers['content-type']).toMatch(/^application\/json\s*(;|$)/)
    expect(() => JSON.parse(res.text) as unknown).not.toThrow()
  })
})

describe('the files of public/', () => {
  it('are the ones the proxy knows', () => {
    const dir = path.join(import.meta.dirname, '..', 'public')
    expect(fs.readdirSync(dir).map((f) => `/${f}`)).toEqual([...PUBLIC_FILES])
  })

  it.each(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PURGE'])('answer %s with 405 and Allow: GET, HEAD, not a 500', async (method) => {
    const res = await raw(
      method,
      '/pages.css',
      { 'content-type': 'application/json' },
      method === 'OPTIONS' || method === 'DELETE' ? undefined : '{}',
    )
    expect(res.status).toBe(405)
    expect(res.headers.allow).toBe('GET, HEAD')
    expect(JSON.parse(res.text)).toMatchObject({ error: { code: 'invalid_request' } })
  })

  it("and the build's assets answer other methods than GET and HEAD with 405, not a 500", async () => {
    const chunks = path.join(import.meta.dirname, '..', '.next', 'static', 'chunks')
    const asset = fs.readdirSync(chunks).find((f) => f.endsWith('.js'))
    for (const method of ['POST', 'DELETE', 'OPTIONS']) {
      const res = await raw(method, `/_next/static/chunks/${asset}`)
      expect(res.status, method).toBe(405)
    }
    expect((await raw('GET', `/_next/static/chunks/${asset}`)).status).toBe(200)
  })

  it('are still served to GET', async () => {
    const res = await raw('GET', '/pages.css')
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/css/)
  })
})

describe('ranges and preconditions on static files', () => {
  it.each<[string, Record<string, string>]>([
    ['an unsatisfiable Range', { range: 'bytes=9999999999-' }],
    ['a failing If-Match', { 'if-match': '"x"' }],
    ['a failing If-Unmodified-Since', { 'if-unmodified-since': 'Mon, 01 Jan 1990 00:00:00 GMT' }],
  ])('%s gets the whole file, not a 500', async (_name, headers) => {
    for (const method of ['GET', 'HEAD']) {
      const res = await raw(method, '/pages.css', headers)
      expect(res.status, method).toBe(200)
      expect(res.headers['content-type']).toMatch(/^text\/css/)
    }
  })
})
