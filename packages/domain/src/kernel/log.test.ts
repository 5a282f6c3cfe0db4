import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createLogger, loggablePath } from './log'

function capture() {
  let out = ''
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      out += chunk.toString()
      done()
    },
  })
  return { log: createLogger('debug', stream), text: () => out }
}

const SECRET = 'S3CRET-VALUE-0123456789'

describe('createLogger redaction (docs/protocol.md §8.9)', () => {
  it.each<[string, Record<string, unknown>]>([
    ['an Authorization header', { headers: { authorization: `GNAP ${SECRET}` } }],
    ['a nested header bag', { req: { headers: { authorization: `GNAP ${SECRET}`, signature: `sig1=:${SECRET}:`, cookie: `s=${SECRET}` } } }],
    ['the identity provider secret header', { headers: { 'x-idp-secret': SECRET } }],
    ['a set-cookie header', { res: { headers: { 'set-cookie': `gnap_interaction=${SECRET}` } } }],
    ['a token value', { access_token: { value: SECRET, manage: 'https://as.example/token/1' } }],
    ['a continuation token', { continue: { access_token: { value: SECRET } } }],
    ['an interact_ref', { interact_ref: SECRET }],
    ['an interactRef', { interaction: { interactRef: SECRET } }],
    ['a finish hash', { hash: SECRET }],
    ['a session value', { session: { value: SECRET, maxAgeSeconds: 600 } }],
    ['a password', { owner: { email: 'a@example.com', password: SECRET } }],
    ['the settings', { config: { introspectionSecrets: [SECRET], identityServerSecrets: [SECRET, `${SECRET}-next`] } }],
    ['a presented idp secret', { input: { idpSecret: SECRET } }],
  ])('never writes %s', (_name, fields) => {
    const { log, text } = capture()
    log.info(fields, 'something happened')
    expect(text()).toContain('something happened')
    expect(text()).toContain('[redacted]')
    expect(text()).not.toContain(SECRET)
  })

  it('keeps what is not secret', () => {
    const { log, text } = capture()
    log.info({ grantId: 'g-1', path: '/continue/abc', status: 401 }, 'request')
    expect(JSON.parse(text())).toMatchObject({ grantId: 'g-1', path: '/continue/abc', status: 401, msg: 'request' })
  })
})

describe('loggablePath (docs/protocol.md §8.9)', () => {
  const nonce = 'C0FFEE0123456789ABCDEF'
  it.each([
    [`/interact/i-1/${nonce}`, '/interact/i-1/[redacted]'],
    [`/interact/i-1/${nonce}/finish?interact_ref=r&hash=h`, '/interact/i-1/[redacted]/finish'],
    [`https://as.example/interact/i-1/${nonce}/consent`, '/interact/i-1/[redacted]/consent'],
    [`/grant/i-1/${nonce}`, '/grant/i-1/[redacted]'],
    [`/grant/i-1/${nonce}/accept`, '/grant/i-1/[redacted]/accept'],
    [`/GRANT/i-1/${nonce}/accept`, '/GRANT/i-1/[redacted]/accept'],
    [`/%67rant/i-1/${nonce}`, '/%67rant/i-1/[redacted]'],
    [`//interact//i-1//${nonce}`, '//interact//i-1//[redacted]'],
    [`/x/../grant/i-1/${nonce}`, '/grant/i-1/[redacted]'],
    ['/account/set-password/LinkSecret_0123456789', '/account/set-password/[redacted]'],
    ['https://as.example/account/set-password/LinkSecret_0123456789?x=1', '/account/set-password/[redacted]'],
    ['/Account/%73et-password/LinkSecret_0123456789', '/Account/%73et-password/[redacted]'],
    ['//account//set-password//LinkSecret_0123456789', '//account//set-password//[redacted]'],
    ['/x/../account/set-password/LinkSecret_0123456789/', '/account/set-password/[redacted]/'],
    ['/admin/set-password/LinkSecret_0123456789', '/admin/set-password/[redacted]'],
    ['/ADMIN/set-password/LinkSecret_0123456789?x=1', '/ADMIN/set-password/[redacted]'],
    ['/admin/owners/abc', '/admin/owners/abc'],
    ['/account/connected-apps/abc', '/account/connected-apps/abc'],
    ['/continue/abc', '/continue/abc'],
    ['/?x=secret', '/'],
  ])('logs %s as %s', (path, logged) => {
    expect(loggablePath(path)).toBe(logged)
  })

  it('cuts a long path', () => {
    expect(loggablePath(`/${'a'.repeat(500)}`)).toHaveLength(200)
  })
})
