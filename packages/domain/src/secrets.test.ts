import { describe, expect, it } from 'vitest'
import { isId, newId } from './secrets'

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
