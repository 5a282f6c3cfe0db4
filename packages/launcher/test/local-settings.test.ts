// The settings `pnpm start` fills in outside production (src/local-settings.ts). The secrets are given here, so the
// repository's data/secrets.json is neither created nor changed.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { applyLocalDefaults } from '../src/local-settings.js'

const given = { INTROSPECTION_SECRET: 'local-introspection-secret-0123456789', IDENTITY_SERVER_SECRET: 'local-idp-secret-0123456789' }
const options = { tag: 'test', authServerUrl: 'http://localhost:3000' }

afterEach(() => {
  vi.restoreAllMocks()
})

describe('WALLET_ADDRESS_ALLOWED_NETWORKS from the launcher', () => {
  it('allows loopback outside production, since `next start` runs the server as production', () => {
    vi.spyOn(console, 'log').mockImplementation(() => undefined)
    const env: Record<string, string | undefined> = { ...given }
    expect(applyLocalDefaults(env, options)).toEqual([])
    expect(env.WALLET_ADDRESS_ALLOWED_NETWORKS).toBe('127.0.0.0/8,::1/128')
  })

  it('keeps a value the operator gave, an empty one included', () => {
    vi.spyOn(console, 'log').mockImplementation(() => undefined)
    const env: Record<string, string | undefined> = { ...given, WALLET_ADDRESS_ALLOWED_NETWORKS: '' }
    applyLocalDefaults(env, options)
    expect(env.WALLET_ADDRESS_ALLOWED_NETWORKS).toBe('')
  })

  it('fills in nothing in production', () => {
    const env: Record<string, string | undefined> = { ...given, NODE_ENV: 'production', AUTH_SERVER_URL: 'https://auth.example' }
    expect(applyLocalDefaults(env, options)).toEqual([])
    expect(env.WALLET_ADDRESS_ALLOWED_NETWORKS).toBeUndefined()
  })
})

describe('WEBHOOK_ALLOWED_NETWORKS from the launcher', () => {
  it('allows a receiver on loopback outside production', () => {
    vi.spyOn(console, 'log').mockImplementation(() => undefined)
    const env: Record<string, string | undefined> = { ...given }
    applyLocalDefaults(env, options)
    expect(env.WEBHOOK_ALLOWED_NETWORKS).toBe('127.0.0.0/8,::1/128')
  })

  it('keeps a value the operator gave, and fills in nothing in production', () => {
    vi.spyOn(console, 'log').mockImplementation(() => undefined)
    const local: Record<string, string | undefined> = { ...given, WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/8' }
    applyLocalDefaults(local, options)
    expect(local.WEBHOOK_ALLOWED_NETWORKS).toBe('10.0.0.0/8')
    const production: Record<string, string | undefined> = { ...given, NODE_ENV: 'production', AUTH_SERVER_URL: 'https://auth.example' }
    applyLocalDefaults(production, options)
    expect(production.WEBHOOK_ALLOWED_NETWORKS).toBeUndefined()
  })
})
