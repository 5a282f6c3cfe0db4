import { afterAll, afterEach, beforeEach } from 'vitest'
import { buildTestDeps, type TestDeps } from './deps'
import { dropIdleTestDbs } from './test-db'

type Overrides = Parameters<typeof buildTestDeps>[0]

/**
 * A fresh database and deps for every test of the file that calls it (at its top level), cleaned up after each (on
 * PostgreSQL an emptied database of the same file, see test-db.ts).
 * The returned object reads through to the current test's TestDeps (`t.deps`, `t.db`, `t.clock`…); `t.reset(overrides)`
 * swaps them, inside a test, for deps with other settings.
 */
export function useTestDeps(overrides?: Overrides): TestDeps & { reset(overrides: Overrides): Promise<TestDeps> } {
  let current: TestDeps | undefined
  beforeEach(async () => {
    current = await buildTestDeps(overrides)
  })
  afterEach(async () => {
    await current?.cleanup()
    current = undefined
  })
  afterAll(dropIdleTestDbs)
  const reset = async (next: Overrides): Promise<TestDeps> => {
    await current?.cleanup()
    current = await buildTestDeps(next)
    return current
  }
  return new Proxy({} as TestDeps & { reset: typeof reset }, {
    get(_target, name) {
      if (name === 'reset') return reset
      if (!current) throw new Error('useTestDeps: read inside a test, not at the top level of the file')
      return current[name as keyof TestDeps]
    },
  })
}
