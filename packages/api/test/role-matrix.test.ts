import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { TRPCError } from '@trpc/server'
import { createSession, csrfTokenFor } from '@gnap/domain/kernel'
import { ADMIN_ROLES, createAdmin, roleAllows, type AdminRole } from '@gnap/domain/operator'
import { keyCreator, type TestDeps } from '@gnap/domain/testing'
import { apiTestDeps, callerWith } from './support'
import { restCaller } from './rest-caller'
import { createApiKey } from '@gnap/domain/operator'
import { everyProcedure, MINIMUM_ROLE, PEOPLE_ONLY, routerPaths, seedProcedureIds, type Caller, type ProcedureIds } from './procedures'

// The role matrix (docs/protocol.md §2.14): every procedure of the router, called by every role. Below the
// procedure's minimum role the server answers FORBIDDEN and nothing changes; at or above it the call gets through
// (it may still be NOT_FOUND or CONFLICT for the state it finds, but never FORBIDDEN or UNAUTHORIZED).

/**
 * The kinds of caller the matrix runs for each role: each gives a caller acting with `role`. Every call gets a new
 * caller, so a call that ends its own session (auth.signOut) leaves the others unaffected. `person` marks a person's
 * session; an API key is refused whatever its role on what only people may call (PEOPLE_ONLY): FORBIDDEN over tRPC,
 * and over REST such a procedure has no operation at all (NOT_FOUND).
 */
export const CALLER_KINDS: {
  name: string
  person: boolean
  peopleOnlyRefusal?: TRPCError['code']
  callerFor(t: TestDeps, role: AdminRole): Promise<() => Promise<Caller>>
}[] = [
  {
    name: 'a console session',
    person: true,
    async callerFor(t, role) {
      const admin = await createAdmin(t.sql, { email: `${role}-caller@example.com`, password: 'a long password for the matrix', role })
      return async () => {
        const s = await createSession(t.sql, { kind: 'admin', subjectId: admin.id, ttlSeconds: 3600, now: t.clock.now })
        return callerWith(t, { session: s.value, csrf: csrfTokenFor(s.value) })
      }
    },
  },
  {
    name: 'an API key',
    person: false,
    async callerFor(t, role) {
      const { key } = await createApiKey(t.deps, { name: `${role} matrix key`, role, actor: await keyCreator(t.sql) })
      return () => callerWith(t, { authorization: `Bearer ${key}` })
    },
  },
  {
    name: 'an API key over REST',
    person: false,
    peopleOnlyRefusal: 'NOT_FOUND',
    async callerFor(t, role) {
      const { key } = await createApiKey(t.deps, { name: `${role} REST matrix key`, role, actor: await keyCreator(t.sql) })
      return () => Promise.resolve(restCaller(t, key))
    },
  },
]

let t: TestDeps
let ids: ProcedureIds
beforeEach(async () => {
  t = await apiTestDeps()
  ids = await seedProcedureIds(t)
})
afterEach(async () => {
  await t.cleanup()
})

/** The TRPCError code of a call, or null when it succeeds. Any other error is a failure of the test. */
async function outcome(call: Promise<unknown>): Promise<TRPCError['code'] | null> {
  try {
    await call
    return null
  } catch (e) {
    if (e instanceof TRPCError) return e.code
    throw e
  }
}

describe('the role matrix', () => {
  it('declares a minimum role for every procedure of the router, and only for those', () => {
    expect(Object.keys(MINIMUM_ROLE).sort()).toEqual(routerPaths())
    expect(
      everyProcedure(ids)
        .map(([p]) => p)
        .sort(),
    ).toEqual(routerPaths())
  })

  describe.each(CALLER_KINDS)('with $name', (kind) => {
    it.each(ADMIN_ROLES)('%s: FORBIDDEN below each minimum role (changing nothing), through at or above it', async (role) => {
      const newCaller = await kind.callerFor(t, role)
      const seen: Record<string, string> = {}
      for (const [path, call] of everyProcedure(ids)) {
        const minimum = MINIMUM_ROLE[path]
        const auditBefore = await t.db.auditLog.count()
        const code = await outcome(call(await newCaller()))
        seen[path] = code ?? 'ok'
        if (!kind.person && PEOPLE_ONLY(path)) {
          expect(code, `a ${role} key calling ${path}`).toBe(kind.peopleOnlyRefusal ?? 'FORBIDDEN')
          expect(await t.db.auditLog.count(), `a ${role} key calling ${path} wrote to the audit log`).toBe(auditBefore)
        } else if (minimum === 'public') {
          // Sign-in takes credentials, not a role: the list's unknown ones are refused UNAUTHORIZED, never FORBIDDEN.
          expect(code, `${role} calling ${path}`).not.toBe('FORBIDDEN')
        } else if (minimum !== 'signed-in' && !roleAllows(role, minimum)) {
          expect(code, `${role} calling ${path}`).toBe('FORBIDDEN')
          expect(await t.db.auditLog.count(), `${role} calling ${path} wrote to the audit log`).toBe(auditBefore)
        } else {
          expect(['FORBIDDEN', 'UNAUTHORIZED', 'INTERNAL_SERVER_ERROR'], `${role} calling ${path}`).not.toContain(code)
        }
      }
      // Every path was called: the matrix covers the router.
      expect(Object.keys(seen).sort()).toEqual(routerPaths())
    })
  })
})
