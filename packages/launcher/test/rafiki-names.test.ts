// Rafiki's AUTH_PORT and AUTH_DATABASE_URL for the launcher's PORT and the database `pnpm start` migrates (src/rafiki-names.ts).
import { describe, expect, it } from 'vitest'
import { applyLauncherAliases } from '../src/rafiki-names.js'
import { launcherSettings } from '../src/serve.js'

describe("Rafiki's names in the launcher", () => {
  it('serves on AUTH_PORT when PORT is not set, and on PORT when both agree', () => {
    expect(launcherSettings({ AUTH_PORT: '3006' }).PORT).toBe(3006)
    expect(launcherSettings({ PORT: '3006', AUTH_PORT: '3006' }).PORT).toBe(3006)
    expect(launcherSettings({ AUTH_PORT: '' }).PORT).toBe(3000)
  })

  it('refuses PORT and AUTH_PORT that differ, naming both', () => {
    expect(() => launcherSettings({ PORT: '3000', AUTH_PORT: '3006' })).toThrow(
      "Invalid launcher setting:\n  PORT and AUTH_PORT (Rafiki's name for PORT) are set to different values: set one of them, or both to the same value",
    )
  })

  it('puts AUTH_DATABASE_URL under DATABASE_URL for the migrations, and never shows a value in a conflict', () => {
    const env: Record<string, string | undefined> = { AUTH_DATABASE_URL: 'postgresql://auth:pw@db/auth' }
    expect(applyLauncherAliases(env)).toEqual([])
    expect(env.DATABASE_URL).toBe('postgresql://auth:pw@db/auth')
    const both = { DATABASE_URL: 'postgresql://a:secret-one@db/a', AUTH_DATABASE_URL: 'postgresql://b:secret-two@db/b' }
    const conflicts = applyLauncherAliases(both)
    expect(conflicts).toHaveLength(1)
    expect(conflicts[0]).not.toMatch(/secret/)
    expect(both.DATABASE_URL).toBe('postgresql://a:secret-one@db/a')
  })
})
