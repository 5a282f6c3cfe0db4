// docs/configuration.md is generated from the settings' schemas (docs/operating.md): this fails when someone adds,
// removes or changes a setting and does not run `pnpm docs:config`, or edits the document by hand.
import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { EnvSchema, FirstAdminEnvSchema, SETTING_ALIASES } from '@gnap/domain/config'
import { LAUNCHER_ALIASES } from '@gnap/launcher/rafiki-names'
import { CONFIGURATION_DOC, renderConfigurationDoc } from '../scripts/config-docs'

describe('docs/configuration.md', () => {
  it('is exactly what the schemas generate', () => {
    expect(fs.readFileSync(CONFIGURATION_DOC, 'utf8')).toBe(renderConfigurationDoc())
  })

  it('lists every variable the server and the seed read, with its default', () => {
    const doc = fs.readFileSync(CONFIGURATION_DOC, 'utf8')
    for (const name of [...Object.keys(EnvSchema.shape), ...Object.keys(FirstAdminEnvSchema.shape)]) {
      expect(doc, name).toContain(`| \`${name}\` |`)
    }
    expect(doc).toMatch(/\| `ACCESS_TOKEN_EXPIRY_SECONDS` \| integer 1–31536000 \| `600` \|/)
    expect(doc).toMatch(/\| `INTROSPECTION_SECRET` \| string \| required .*\| required; each entry at least 32 characters \|/)
  })
})

describe("docs/configuration.md and Rafiki's setting names", () => {
  it('shows both names where Rafiki has another, and what becomes of the names we do not use', () => {
    const doc = fs.readFileSync(CONFIGURATION_DOC, 'utf8')
    expect(doc).toMatch(/\| `PORT` \| integer 1–65535 \| `3000` \|  \| Also read as `AUTH_PORT`, Rafiki's name/)
    expect(doc).toMatch(/\| `DATABASE_URL` \| .* \| Also read as `AUTH_DATABASE_URL`, Rafiki's name/)
    expect(doc).toContain('| `AUTH_PORT` | read as `PORT` |')
    expect(doc).toContain('| `AUTH_DATABASE_URL` | read as `DATABASE_URL` |')
    for (const name of ['REDIS_URL', 'COOKIE_KEY', 'INTERACTION_PORT'])
      expect(doc, name).toMatch(new RegExp(`\\| \`${name}\` \\| accepted and named`))
  })

  it("has the launcher read the server's aliases of the settings it reads itself", () => {
    for (const [ours, theirs] of Object.entries(LAUNCHER_ALIASES)) expect((SETTING_ALIASES as Record<string, string>)[ours], ours).toBe(theirs)
  })
})
