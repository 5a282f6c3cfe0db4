import type { PrismaClient } from '../kernel/db/store'

// PostgreSQL race tests: holds every transaction that inserts into a table at that insert (its earlier statements
// done, its checks passed, nothing committed) until the test lets them go, so a second transaction can be started
// exactly then. A trigger takes a shared advisory lock that a holder transaction keeps exclusively.

/** Lock requests of a kind that are waiting (not granted) right now. */
export async function waitingLocks(db: PrismaClient, locktype: 'advisory' | 'relation'): Promise<number> {
  const rows = await db.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = $1 AND NOT granted`, locktype)
  return rows[0]!.n
}

/** Resolves once `condition` holds, looking every 10 ms. */
export async function until(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 10))
}

/**
 * Holds inserts into `table` until `release()`. Call `drop()` once the transactions held have settled.
 * @param key the advisory lock key, distinct per test file
 */
export async function holdInsertsInto(db: PrismaClient, table: string, key: number): Promise<{ release(): Promise<void>; drop(): Promise<void> }> {
  await db.$executeRawUnsafe(
    `CREATE FUNCTION held_by_test() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_advisory_xact_lock_shared(${key}); RETURN NEW; END $$`,
  )
  await db.$executeRawUnsafe(`CREATE TRIGGER held_by_test BEFORE INSERT ON "${table}" FOR EACH ROW EXECUTE FUNCTION held_by_test()`)
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  let locked!: () => void
  const isLocked = new Promise<void>((resolve) => (locked = resolve))
  const holder = db.$transaction(
    async (tx) => {
      await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${key})`)
      locked()
      await released
    },
    { timeout: 60_000 },
  )
  await isLocked
  return {
    release: async () => {
      release()
      await holder
    },
    drop: async () => {
      await db.$executeRawUnsafe(`DROP TRIGGER held_by_test ON "${table}"`)
    },
  }
}
