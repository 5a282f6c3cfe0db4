// Rafiki's setting names (docs/configuration.md, "Rafiki's setting names"): its aliases of ours, its ports without a
// listener here, and its settings that do nothing here.
import { describe, expect, it } from 'vitest'
import { EnvSchema, configFromEnv } from './config'
import { resolveSettingAliases, unusedRafikiSettings } from './rafiki-settings'

const base = { AUTH_SERVER_URL: 'https://auth.example', INTROSPECTION_SECRET: 'introspection-secret-0123456789abcdef' }
const known = new Set(Object.keys(EnvSchema.shape))

describe('resolveSettingAliases', () => {
  it("reads Rafiki's AUTH_PORT and AUTH_DATABASE_URL as PORT and DATABASE_URL", () => {
    const { env, conflicts } = resolveSettingAliases({ ...base, AUTH_PORT: '3006', AUTH_DATABASE_URL: 'postgresql://auth:pw@db/auth' })
    expect(conflicts).toEqual([])
    const parsed = EnvSchema.parse(env)
    expect(parsed).toMatchObject({ PORT: 3006, DATABASE_URL: 'postgresql://auth:pw@db/auth' })
  })

  it('takes both names when they agree, and an empty alias as unset', () => {
    expect(resolveSettingAliases({ PORT: '3006', AUTH_PORT: ' 3006 ' })).toMatchObject({ conflicts: [], env: { PORT: '3006' } })
    expect(resolveSettingAliases({ PORT: '3000', AUTH_PORT: '' })).toMatchObject({ conflicts: [], env: { PORT: '3000' } })
    expect(resolveSettingAliases({ AUTH_PORT: '' }).env.PORT).toBeUndefined()
  })

  it('refuses two different values, naming both settings and showing neither value', () => {
    const { conflicts } = resolveSettingAliases({
      PORT: '3000',
      AUTH_PORT: '3006',
      DATABASE_URL: 'postgresql://gnap:first-password@db/gnap',
      AUTH_DATABASE_URL: 'postgresql://auth:second-password@db/auth',
    })
    expect(conflicts).toEqual([
      "PORT and AUTH_PORT (Rafiki's name for PORT) are set to different values: set one of them, or both to the same value",
      "DATABASE_URL and AUTH_DATABASE_URL (Rafiki's name for DATABASE_URL) are set to different values: set one of them, or both to the same value",
    ])
    expect(conflicts.join(' ')).not.toMatch(/password|3006|3000/)
  })

  it('leaves the source as it was', () => {
    const source = { AUTH_PORT: '3006' }
    resolveSettingAliases(source)
    expect(source).toEqual({ AUTH_PORT: '3006' })
  })

  it("parses the rest of Rafiki's chart as it is: the expiry, wait and interaction-policy names are ours", () => {
    const chart = {
      ...base,
      AUTH_PORT: '3006',
      INTROSPECTION_PORT: '3007',
      WAIT_SECONDS: '7',
      ACCESS_TOKEN_EXPIRY_SECONDS: '900',
      INTERACTION_EXPIRY_SECONDS: '300',
      ACCESS_TOKEN_DELETION_DAYS: '14',
      INCOMING_PAYMENT_INTERACTION: 'true',
      QUOTE_INTERACTION: 'true',
      LIST_ALL_ACCESS_INTERACTION: 'false',
      TRUST_PROXY: 'false',
      LOG_LEVEL: 'debug',
    }
    const config = configFromEnv(EnvSchema.parse(resolveSettingAliases(chart).env))
    expect(config).toMatchObject({
      waitSeconds: 7,
      accessTokenExpirySeconds: 900,
      interactionExpirySeconds: 300,
      accessTokenDeletionDays: 14,
      incomingPaymentInteraction: true,
      quoteInteraction: true,
      listAllInteraction: false,
      introspectionListener: { port: 3007 },
    })
  })
})

describe('unusedRafikiSettings', () => {
  it('names the ports without a listener (with where their routes are) and the ignored settings that are set, never a value', () => {
    const unused = unusedRafikiSettings(
      {
        ...base,
        REDIS_URL: 'redis://:redis-password@redis:6379',
        COOKIE_KEY: 'cookie-key-value',
        INTERACTION_PORT: '3009',
        ENV_FILE: '',
      },
      known,
    )
    expect(unused).toEqual(['INTERACTION_PORT (the interaction and identity-provider routes are served on `PORT`)', 'REDIS_URL', 'COOKIE_KEY'])
    expect(unused.join(' ')).not.toMatch(/redis-password|cookie-key-value|3009/)
  })

  it('names nothing for our own settings, or for a port the server reads once it has a listener', () => {
    expect(unusedRafikiSettings({ ...base, WAIT_SECONDS: '5', INTROSPECTION_PORT: '3007' }, known)).toEqual([])
    expect(unusedRafikiSettings({ SERVICE_API_PORT: '3011' }, known)).toEqual([])
    expect(unusedRafikiSettings({ ADMIN_PORT: '3008', ADMIN_API_SIGNATURE_TTL_SECONDS: '30' }, known)).toEqual([])
    expect(unusedRafikiSettings({ INTERACTION_PORT: '3009' }, new Set(['INTERACTION_PORT']))).toEqual([])
    expect(unusedRafikiSettings({ INTERACTION_PORT: '3009' }, new Set())).toEqual([
      'INTERACTION_PORT (the interaction and identity-provider routes are served on `PORT`)',
    ])
  })
})
