import { describe, expect, it } from 'vitest'
import { EnvSchema, configFromEnv } from './config'

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
