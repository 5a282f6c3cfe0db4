import { describe, expect, it } from 'vitest'
import { hashSecret } from '../secrets'
import { databaseText } from '../../testing/deps'
import { createSession } from './create-session'
import { findSession } from './find-session'
import { endSession } from './end-session'
import { csrfMatches, csrfTokenFor } from './csrf'
import type { SessionKind } from './session.repo'
import { useTestDeps } from '../../testing/use-test-deps'

const t = useTestDeps()

const TTL = 1800
const open = (kind: SessionKind = 'owner', subjectId = 'owner-1') => createSession(t.sql, { kind, subjectId, ttlSeconds: TTL, now: t.deps.clock() })
const find = (value: string | null, kind: SessionKind = 'owner') => findSession(t.sql, kind, value, t.deps.clock())

describe('createSession', () => {
  it('returns a value and its expiry, and stores only hashes of the value and of its CSRF token', async () => {
    const { value, expiresAt } = await open('owner', 'owner-1')
    expect(value.length).toBeGreaterThanOrEqual(32)
    expect(expiresAt).toEqual(new Date(t.clock.now.getTime() + TTL * 1000))
    const row = await t.db.session.findUniqueOrThrow({ where: { id: hashSecret(value) } })
    expect(row).toEqual({
      id: hashSecret(value),
      kind: 'owner',
      subjectId: 'owner-1',
      csrfHash: hashSecret(csrfTokenFor(value)),
      createdAt: t.clock.now,
      expiresAt,
    })
    const text = await databaseText(t)
    expect(text).not.toContain(value)
    expect(text).not.toContain(csrfTokenFor(value))
  })

  it('gives every session its own value and CSRF token', async () => {
    const a = await open()
    const b = await open()
    expect(a.value).not.toBe(b.value)
    expect(csrfTokenFor(a.value)).not.toBe(csrfTokenFor(b.value))
  })
})

describe('findSession', () => {
  it('finds a live session of its kind', async () => {
    const { value } = await open('owner', 'owner-1')
    expect(await find(value)).toMatchObject({ kind: 'owner', subjectId: 'owner-1' })
  })

  it('finds the session until its last millisecond and not at its expiry', async () => {
    const { value } = await open()
    t.clock.advance(TTL - 0.001)
    expect(await find(value)).not.toBeNull()
    t.clock.advance(0.001)
    expect(await find(value)).toBeNull()
    t.clock.advance(3600)
    expect(await find(value)).toBeNull()
  })

  it.each<[SessionKind, SessionKind]>([
    ['admin', 'owner'],
    ['owner', 'admin'],
  ])('does not take a %s session for an %s session', async (created, asked) => {
    const { value } = await open(created)
    expect(await find(value, asked)).toBeNull()
    expect(await find(value, created)).not.toBeNull()
  })

  it.each([
    ['null', null],
    ['an empty value', ''],
    ['an unknown value', 'A'.repeat(48)],
    ['an over-long value', 'A'.repeat(129)],
  ])('answers null for %s', async (_name, value) => {
    await open()
    expect(await find(value)).toBeNull()
  })

  it('does not take the hash stored in the database as a cookie value', async () => {
    const { value } = await open()
    expect(await find(hashSecret(value))).toBeNull()
  })

  it('does not take the CSRF token as a cookie value', async () => {
    const { value } = await open()
    expect(await find(csrfTokenFor(value))).toBeNull()
  })
})

describe('csrfMatches', () => {
  it('accepts the CSRF token of its own session only', async () => {
    const a = await open()
    const b = await open()
    const rowA = (await find(a.value))!
    expect(csrfMatches(rowA, csrfTokenFor(a.value))).toBe(true)
    expect(csrfMatches(rowA, csrfTokenFor(b.value))).toBe(false)
  })

  it.each([
    ['no token', null],
    ['an empty token', ''],
    ['the session value itself', 'SESSION'],
    ['the stored hash', 'HASH'],
    ['an over-long token', 'x'.repeat(129)],
  ])('refuses %s', async (_name, token) => {
    const { value } = await open()
    const row = (await find(value))!
    const presented = token === 'SESSION' ? value : token === 'HASH' ? row.csrfHash : token
    expect(csrfMatches(row, presented)).toBe(false)
  })

  it('derives the same CSRF token from the same session value', () => {
    expect(csrfTokenFor('value-1')).toBe(csrfTokenFor('value-1'))
    expect(csrfTokenFor('value-1')).not.toBe(csrfTokenFor('value-2'))
    expect(csrfTokenFor('value-1')).not.toContain('value-1')
  })
})

describe('endSession', () => {
  it('ends that session only', async () => {
    const a = await open()
    const b = await open()
    await endSession(t.sql, a.value)
    expect(await find(a.value)).toBeNull()
    expect(await find(b.value)).not.toBeNull()
    expect(await t.db.session.count()).toBe(1)
  })

  it.each([
    ['null', null],
    ['an unknown value', 'B'.repeat(48)],
    ['an over-long value', 'B'.repeat(129)],
  ])('does nothing for %s', async (_name, value) => {
    await open()
    await endSession(t.sql, value)
    expect(await t.db.session.count()).toBe(1)
  })
})
