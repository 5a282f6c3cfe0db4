// docs/protocol.md §2.18 lists the REST operations as the router declares them (scripts/rest-docs.ts): this fails
// when a procedure gains, loses or changes its REST form and `pnpm docs:rest` was not run, or when someone edits the
// generated part by hand.
import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { REST_OPERATIONS } from '@gnap/api'
import { PROTOCOL_DOC, renderProtocolDoc } from '../scripts/rest-docs'

describe('docs/protocol.md’s REST operations', () => {
  it('are exactly what the router declares', () => {
    const doc = fs.readFileSync(PROTOCOL_DOC, 'utf8')
    expect(doc).toBe(renderProtocolDoc(doc))
  })

  it('list every operation with its method, path and role, blocking a client among them', () => {
    const doc = fs.readFileSync(PROTOCOL_DOC, 'utf8')
    for (const op of REST_OPERATIONS) expect(doc, op.procedure).toContain(`| ${op.method} | \`${op.path}\` | ${op.role} |`)
    expect(doc).toMatch(/\| POST \| `\/clients\/block` \| operator \| /)
    expect(doc).toMatch(/\| POST \| `\/clients\/unblock` \| operator \| /)
  })
})
