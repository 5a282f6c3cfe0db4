// docs/configuration.md is generated from the settings' schemas (docs/operating.md): this fails when someone adds,
// removes or changes a setting and does not run `pnpm docs:config`, or edits the document by hand.
import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { EnvSchema, FirstAdminEnvSchema } from '@gnap/domain/config'
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
