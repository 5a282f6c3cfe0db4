import fs from 'node:fs'
import path from 'node:path'
import { checkReadiness, type Readiness } from '@gnap/domain/kernel'
import { getDeps } from './deps'
import { isDraining } from './process-edge'

// GET /readyz (docs/protocol.md §2.19): ready when this process is not stopping, its database answers, and every
// migration shipped with this version is applied. Once the migrations were found applied that is remembered (they
// are never taken back while the process runs), so a probe then costs one trivial query.

const KEY = Symbol.for('gnap.migrationsApplied')
const memo = globalThis as unknown as Record<symbol, boolean | undefined>

/** The migration folders shipped for `provider` (prisma/migrations, prisma/postgres/migrations), by name. */
function shippedMigrations(provider: 'sqlite' | 'postgresql'): string[] {
  // The server runs in apps/web (`next start`, the launcher's workers): the repository is two levels up.
  const dir = path.resolve(process.cwd(), '../../prisma', ...(provider === 'postgresql' ? ['postgres'] : []), 'migrations')
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
}

/** A probe answers within this, whatever the database does: a hung query must not hang the orchestrator's check. */
const READINESS_TIMEOUT_MS = 2000

export async function readiness(): Promise<Readiness> {
  if (isDraining()) return { ready: false, reason: 'the server is stopping' }
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<Readiness>((resolve) => {
    timer = setTimeout(
      () => resolve({ ready: false, reason: `the database did not answer within ${READINESS_TIMEOUT_MS / 1000} s` }),
      READINESS_TIMEOUT_MS,
    )
  })
  try {
    return await Promise.race([check(), late])
  } finally {
    clearTimeout(timer)
  }
}

async function check(): Promise<Readiness> {
  let deps
  try {
    deps = await getDeps()
  } catch {
    return { ready: false, reason: 'the database does not answer' }
  }
  let shipped: string[] = []
  if (!memo[KEY]) {
    try {
      shipped = shippedMigrations(deps.sql.dialect)
    } catch {
      return { ready: false, reason: 'the migration folders shipped with the server could not be read' }
    }
  }
  try {
    if (memo[KEY]) {
      await deps.sql.all('SELECT 1')
      return { ready: true }
    }
    const result = await checkReadiness(deps.sql, shipped)
    if (result.ready) memo[KEY] = true
    return result
  } catch {
    return { ready: false, reason: 'the database does not answer' }
  }
}
