import { describe, expect, it } from 'vitest'
import { isId, newId } from './secrets'
import { findGrantByContinueId } from '../protocol/grant/grant.repo'
import type { SqlRunner } from './db/sql'
import { findTokenByManagementId } from '../protocol/access-token/access-token.repo'
import { findInteraction } from '../protocol/interaction/interaction.repo'

describe('isId: the shape of ids in URLs (continue, manage, interaction)', () => {
  it('accepts what newId gives', () => {
    for (let i = 0; i < 100; i++) expect(isId(newId())).toBe(true)
  })

  it.each([
    ['empty', ''],
    ['a word', 'unknown'],
    ['upper case', newId().toUpperCase()],
    ['a UUID of another version', '0f3c1e5a-9d2b-1c4e-8a7b-5d6e7f809a1b'],
    ['no hyphens', newId().replaceAll('-', '')],
    ['padded', ` ${newId()}`],
    ['a percent-encoded UUID', encodeURIComponent(newId()).replace('-', '%2D')],
    ['a trailing newline', `${newId()}\n`],
    ['very long', 'a'.repeat(10_000)],
  ])('refuses %s', (_name, value) => {
    expect(isId(value)).toBe(false)
  })
})

describe('finders by URL id', () => {
  // A database that fails the test if it is asked anything.
  const untouchable = new Proxy({}, { get: (_t, name) => expect.unreachable(`database asked for ${String(name)}`) }) as SqlRunner

  it.each(['', 'unknown', '%E0%A4%A', 'a'.repeat(5000), newId().toUpperCase()])('answer none for id #%# without a database query', async (id) => {
    await expect(findGrantByContinueId(untouchable, id)).resolves.toBeNull()
    await expect(findTokenByManagementId(untouchable, id)).resolves.toBeNull()
    await expect(findInteraction(untouchable, id, 'NONCE')).resolves.toBeNull()
  })
})
