import { describe, expect, it } from 'vitest'
import { authenticateResourceServer } from '../../protocol/access-token/introspect-token'
import { checkIdpSecret } from '../../protocol/interaction/check-idp-secret'
import { useTestDeps } from '../../testing/use-test-deps'
import { EnvSchema, configFromEnv } from './config'

const t = useTestDeps()
const BASE = { AUTH_SERVER_URL: 'https://auth.example' }
const OLD = 'old-secret-0123456789-0123456789-abc'
const NEW = 'new-secret-0123456789-0123456789-xyz'
const SHORT = 'short-secret-0123456' // 20 characters: enough outside production only

const parse = (env: Record<string, string>) => EnvSchema.safeParse({ ...BASE, ...env })
const issues = (env: Record<string, string>) => {
  const r = parse(env)
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)
}

describe('shared secrets (docs/protocol.md §7)', () => {
  it('refuses an introspection or identity-provider secret shorter than 32 characters in production', () => {
    expect(issues({ NODE_ENV: 'production', INTROSPECTION_SECRET: SHORT })).toEqual([expect.stringMatching(/^INTROSPECTION_SECRET: .*32 characters/)])
    expect(issues({ NODE_ENV: 'production', INTROSPECTION_SECRET: OLD, IDENTITY_SERVER_SECRET: SHORT })).toEqual([
      expect.stringMatching(/^IDENTITY_SERVER_SECRET: .*32 characters/),
    ])
    // One short entry in a list is refused too.
    expect(issues({ NODE_ENV: 'production', INTROSPECTION_SECRET: `${OLD},${SHORT}` })).toHaveLength(1)
    expect(issues({ NODE_ENV: 'production', INTROSPECTION_SECRET: OLD, IDENTITY_SERVER_SECRET: `${OLD},${NEW}` })).toEqual([])
  })

  it('takes 16 characters outside production, and no empty entry anywhere', () => {
    expect(issues({ INTROSPECTION_SECRET: SHORT, IDENTITY_SERVER_SECRET: SHORT })).toEqual([])
    expect(issues({ INTROSPECTION_SECRET: 'fifteen-chars-x' })).toHaveLength(1)
    expect(issues({ INTROSPECTION_SECRET: `${OLD},` })).toHaveLength(1)
  })

  it('accepts every entry of a comma-separated list, and nothing else, at introspection and at the identity-provider API', () => {
    const env = EnvSchema.parse({ ...BASE, INTROSPECTION_SECRET: `${OLD}, ${NEW}`, IDENTITY_SERVER_SECRET: `${NEW},${OLD}` })
    const deps = { ...t.deps, config: configFromEnv(env) }
    for (const secret of [OLD, NEW]) {
      expect(() => authenticateResourceServer(deps, `Bearer ${secret}`)).not.toThrow()
      expect(() => checkIdpSecret(deps, secret, 'invalid_request')).not.toThrow()
    }
    for (const wrong of [`${OLD},${NEW}`, `${OLD}, ${NEW}`, OLD.slice(0, -1), `${NEW}x`, 'x']) {
      expect(() => authenticateResourceServer(deps, `Bearer ${wrong}`)).toThrow(expect.objectContaining({ status: 401 }))
      expect(() => checkIdpSecret(deps, wrong, 'invalid_request')).toThrow(expect.objectContaining({ status: 401 }))
    }
  })
})

describe('SQLITE_SYNCHRONOUS (docs/protocol.md §9)', () => {
  it('is full unless the operator says normal', () => {
    expect(EnvSchema.parse({ ...BASE, INTROSPECTION_SECRET: OLD }).SQLITE_SYNCHRONOUS).toBe('full')
    expect(EnvSchema.parse({ ...BASE, INTROSPECTION_SECRET: OLD, SQLITE_SYNCHRONOUS: 'NORMAL' }).SQLITE_SYNCHRONOUS).toBe('normal')
    expect(parse({ INTROSPECTION_SECRET: OLD, SQLITE_SYNCHRONOUS: 'off' }).success).toBe(false)
  })
})

const base = { AUTH_SERVER_URL: 'https://auth.example', INTROSPECTION_SECRET: 'introspection-secret-0123456789abcdef' }
const configOf = (env: Record<string, string>) => configFromEnv(EnvSchema.parse({ ...base, ...env }))

describe('WALLET_ADDRESS_ALLOWED_NETWORKS (docs/protocol.md §4.3, §7)', () => {
  it('allows no network besides public addresses in production when unset', () => {
    expect(configOf({ NODE_ENV: 'production' }).walletAddressAllowedNetworks).toEqual([])
  })

  it('allows loopback outside production when unset', () => {
    expect(configOf({}).walletAddressAllowedNetworks).toEqual(['127.0.0.0/8', '::1/128'])
    expect(configOf({ NODE_ENV: 'development' }).walletAddressAllowedNetworks).toEqual(['127.0.0.0/8', '::1/128'])
  })

  it('takes a comma-separated list, and an empty one means none, in any mode', () => {
    expect(
      configOf({ NODE_ENV: 'production', WALLET_ADDRESS_ALLOWED_NETWORKS: ' 10.0.0.0/8, fd00::/8 ,192.168.4.2' }).walletAddressAllowedNetworks,
    ).toEqual(['10.0.0.0/8', 'fd00::/8', '192.168.4.2'])
    expect(configOf({ WALLET_ADDRESS_ALLOWED_NETWORKS: '' }).walletAddressAllowedNetworks).toEqual([])
  })

  it.each(['10.0.0.0/33', 'intranet.example', '10.0.0.0/8;fd00::/8'])('refuses %j, naming the setting', (value) => {
    const parsed = EnvSchema.safeParse({ ...base, WALLET_ADDRESS_ALLOWED_NETWORKS: value })
    expect(parsed.success).toBe(false)
    expect(parsed.error?.issues[0]?.path).toEqual(['WALLET_ADDRESS_ALLOWED_NETWORKS'])
  })
})

describe('TRUSTED_PROXY_HOPS (docs/protocol.md §7)', () => {
  it('defaults to 1 and takes a small positive count', () => {
    expect(configOf({}).trustedProxyHops).toBe(1)
    expect(configOf({ TRUSTED_PROXY_HOPS: '2' }).trustedProxyHops).toBe(2)
  })

  it.each(['0', '-1', 'two', '1.5'])('refuses %j', (value) => {
    expect(EnvSchema.safeParse({ ...base, TRUSTED_PROXY_HOPS: value }).success).toBe(false)
  })
})

describe('INTROSPECTION_PORT and INTROSPECTION_HOST (docs/protocol.md §2.6)', () => {
  const listenerIssues = (env: Record<string, string>) => {
    const r = EnvSchema.safeParse({ ...base, ...env })
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)
  }

  it('leave the listener off unless the port is set, and bind it to loopback unless told', () => {
    expect(configOf({}).introspectionListener).toBeNull()
    expect(configOf({ INTROSPECTION_PORT: '', INTROSPECTION_HOST: '0.0.0.0' }).introspectionListener).toBeNull()
    expect(configOf({ INTROSPECTION_PORT: '4001' }).introspectionListener).toEqual({ port: 4001, host: '127.0.0.1', trustProxy: false })
    expect(configOf({ INTROSPECTION_PORT: '4001', INTROSPECTION_HOST: '10.0.0.5' }).introspectionListener).toEqual({
      port: 4001,
      host: '10.0.0.5',
      trustProxy: false,
    })
    expect(configOf({ INTROSPECTION_PORT: '4001', INTROSPECTION_TRUST_PROXY: 'true' }).introspectionListener).toMatchObject({ trustProxy: true })
  })

  it.each(['0', '65536', 'http', '4000.5'])('refuses the port %j', (value) => {
    expect(listenerIssues({ INTROSPECTION_PORT: value })).toEqual([expect.stringMatching(/^INTROSPECTION_PORT: /)])
  })

  it('refuses the app port', () => {
    expect(listenerIssues({ PORT: '4000', INTROSPECTION_PORT: '4000' })).toEqual([
      'INTROSPECTION_PORT: must differ from PORT: the listener is a port of its own',
    ])
  })
})

describe('METRICS_SECRET and METRICS_PORT', () => {
  const metricsIssues = (env: Record<string, string>) => {
    const r = EnvSchema.safeParse({ ...base, ...env })
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)
  }

  it('leave metrics off unless one is set', () => {
    expect(configOf({})).toMatchObject({ metricsSecrets: null, metricsPort: null })
    expect(configOf({ METRICS_PORT: '' }).metricsPort).toBeNull()
    expect(configOf({ METRICS_SECRET: `${OLD},${NEW}`, METRICS_PORT: '9464' })).toMatchObject({ metricsSecrets: [OLD, NEW], metricsPort: 9464 })
  })

  it('refuse a metrics secret shorter than 32 characters in production, and than 16 elsewhere', () => {
    expect(metricsIssues({ NODE_ENV: 'production', METRICS_SECRET: SHORT })).toEqual([expect.stringMatching(/^METRICS_SECRET: .*32 characters/)])
    expect(metricsIssues({ NODE_ENV: 'production', METRICS_SECRET: OLD })).toEqual([])
    expect(metricsIssues({ METRICS_SECRET: SHORT })).toEqual([])
    expect(metricsIssues({ METRICS_SECRET: 'fifteen-chars-x' })).toHaveLength(1)
  })

  it('refuse the app port and the introspection port, and ports out of range', () => {
    expect(metricsIssues({ PORT: '4000', METRICS_PORT: '4000' })).toEqual([
      'METRICS_PORT: must differ from PORT and INTROSPECTION_PORT: the metrics are a port of their own',
    ])
    expect(metricsIssues({ INTROSPECTION_PORT: '4001', METRICS_PORT: '4001' })).toHaveLength(1)
    expect(metricsIssues({ METRICS_PORT: '70000' })).toEqual([expect.stringMatching(/^METRICS_PORT: /)])
  })
})

describe('INTROSPECTION_PORT_AUTH and INTROSPECTION_CLIENT_FORMAT (docs/protocol.md §2.6)', () => {
  it('ask for the secret and answer the client as an object unless told otherwise', () => {
    expect(configOf({})).toMatchObject({ introspectionPortAuth: 'secret', introspectionClientFormat: 'object' })
    expect(configOf({ INTROSPECTION_PORT: '4001', INTROSPECTION_PORT_AUTH: 'none', INTROSPECTION_CLIENT_FORMAT: 'string' })).toMatchObject({
      introspectionPortAuth: 'none',
      introspectionClientFormat: 'string',
    })
  })

  it('refuse no credentials without the introspection port: POST /introspect always keeps its secret', () => {
    const r = EnvSchema.safeParse({ ...base, INTROSPECTION_PORT_AUTH: 'none' })
    expect(r.success).toBe(false)
    expect(r.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([
      'INTROSPECTION_PORT_AUTH: applies to the introspection port alone: set INTROSPECTION_PORT (POST /introspect always requires INTROSPECTION_SECRET)',
    ])
  })

  it.each([
    ['INTROSPECTION_PORT_AUTH', 'off'],
    ['INTROSPECTION_CLIENT_FORMAT', 'v2.3'],
  ])('refuse %s=%s', (name, value) => {
    expect(EnvSchema.safeParse({ ...base, INTROSPECTION_PORT: '4001', [name]: value }).success).toBe(false)
  })
})

describe("ADMIN_PORT, ADMIN_HOST and the Admin API's signature settings (docs/admin-api.md)", () => {
  const issues = (env: Record<string, string>) => {
    const r = EnvSchema.safeParse({ ...base, ...env })
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)
  }

  it("leave the Admin API off unless the port is set, bound to loopback, with Rafiki's defaults", () => {
    expect(configOf({}).adminApi).toBeNull()
    expect(configOf({ ADMIN_PORT: '', ADMIN_API_SIGNATURE_VERSION: '2' }).adminApi).toBeNull()
    expect(configOf({ ADMIN_PORT: '3008' }).adminApi).toEqual({ port: 3008, host: '127.0.0.1', signatureVersion: 1, signatureTtlSeconds: 30 })
    expect(
      configOf({ ADMIN_PORT: '3008', ADMIN_HOST: '0.0.0.0', ADMIN_API_SIGNATURE_VERSION: '2', ADMIN_API_SIGNATURE_TTL_SECONDS: '60' }).adminApi,
    ).toEqual({ port: 3008, host: '0.0.0.0', signatureVersion: 2, signatureTtlSeconds: 60 })
  })

  it('refuses a port another listener has, and a TTL of no time', () => {
    expect(issues({ PORT: '4000', ADMIN_PORT: '4000' })).toEqual([
      'ADMIN_PORT: must differ from PORT, INTROSPECTION_PORT, METRICS_PORT and SERVICE_API_PORT',
    ])
    expect(issues({ SERVICE_API_PORT: '3011', ADMIN_PORT: '3011' })).toHaveLength(1)
    expect(issues({ ADMIN_API_SIGNATURE_TTL_SECONDS: '0' })).toEqual([expect.stringMatching(/^ADMIN_API_SIGNATURE_TTL_SECONDS: /)])
  })
})
