import { describe, expect, it } from 'vitest'
import { passwordProblem } from './password-rules'

const ctx = { email: 'alice@example.com', name: 'Alice Wonderland' }

describe('passwordProblem', () => {
  it.each([
    ['a long phrase', 'violet kettle under stairs'],
    ['exactly 12 characters', 'abcdefghijk!'],
    ['256 characters', 'x'.repeat(255) + 'y'],
    ['12 emoji (12 code points, 24 UTF-16 units)', '😀'.repeat(12)],
  ])('accepts %s', (_name, password) => {
    expect(passwordProblem(password, ctx)).toBeNull()
  })

  it.each([
    ['11 characters', 'abcdefghij!', /too short/],
    ['6 astral characters (12 UTF-16 units)', '😀'.repeat(6), /too short/],
    ['257 characters', 'x'.repeat(257), /too long/],
    ['a common password', 'qwerty123456', /commonly used/],
    ['a common password in other case', 'QWERTY123456', /commonly used/],
    ['another common password', '1q2w3e4r5t6y', /commonly used/],
    ['the email', 'alice@example.com', /your email address/],
    ['the email in upper case', 'ALICE@EXAMPLE.COM', /your email address/],
    ['the name', 'Alice Wonderland', /your name/],
  ])('refuses %s, in words', (_name, password, reason) => {
    expect(passwordProblem(password, ctx)).toMatch(reason)
  })

  it('accepts the name as password when no name is known', () => {
    expect(passwordProblem('Alice Wonderland', { email: null })).toBeNull()
  })
})
