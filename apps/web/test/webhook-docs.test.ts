// docs/webhooks.md's event reference and docs/webhook-events.schema.json are generated from the events' zod schemas
// (scripts/webhook-docs.ts): this fails when a schema or a type changes and `pnpm docs:webhooks` was not run, or
// when someone edits the generated part by hand. And the published JSON Schema must do its job: accept every
// example and refuse what the server never sends.
import fs from 'node:fs'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { describe, expect, it } from 'vitest'
import { WEBHOOK_EVENT_TYPES } from '@gnap/domain/protocol'
import { ALL_TYPES, WEBHOOKS_DOC, WEBHOOK_SCHEMA_FILE, exampleBody, renderSchemaFile, renderWebhooksDoc } from '../scripts/webhook-docs'

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void

function validator() {
  const ajv = new Ajv2020({ strict: true, allErrors: true })
  addFormats(ajv)
  return ajv.compile(JSON.parse(fs.readFileSync(WEBHOOK_SCHEMA_FILE, 'utf8')) as object)
}

describe('docs/webhooks.md and docs/webhook-events.schema.json', () => {
  it('are exactly what the event schemas generate', () => {
    const doc = fs.readFileSync(WEBHOOKS_DOC, 'utf8')
    expect(doc).toBe(renderWebhooksDoc(doc))
    expect(fs.readFileSync(WEBHOOK_SCHEMA_FILE, 'utf8')).toBe(renderSchemaFile())
  })

  it('describe every event type, and the test event', () => {
    const doc = fs.readFileSync(WEBHOOKS_DOC, 'utf8')
    expect(ALL_TYPES).toEqual([...WEBHOOK_EVENT_TYPES, 'webhook.test'])
    for (const type of ALL_TYPES) expect(doc, type).toContain(`### \`${type}\``)
  })

  it('publish a JSON Schema that accepts every example and refuses a member the server never sends', () => {
    const validate = validator()
    for (const type of ALL_TYPES) {
      const body = exampleBody(type) as { data: Record<string, unknown> }
      expect(validate(body), `${type}: ${JSON.stringify(validate.errors)}`).toBe(true)
      expect(validate({ ...body, data: { ...body.data, access_token_value: 'a secret' } }), type).toBe(false)
    }
    expect(validate({ ...(exampleBody('grant.issued') as object), type: 'grant.unknown' })).toBe(false)
  })
})
