// pnpm db:backup and db:restore (docs/protocol.md §9) with a real server: a backup taken while clients keep asking for
// grants and rotating tokens, restored into a fresh folder and served there, answers every token that introspected
// before the backup exactly as before. The restore refuses while a server uses the database.
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { root, startServer, type RunningServer } from '@gnap/test-support'
import { incomingAccess, issuedGrant, signedFetch, type IssuedToken } from './support/raw-http'
import { introspect, startWorld, type World } from './support/world'

let w: World
let restored: RunningServer | undefined
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gnap-backup-'))
beforeAll(async () => {
  w = await startWorld({ RATE_LIMIT_GRANTS_PER_MINUTE: '0', RATE_LIMIT_GRANTS_PER_MINUTE_PER_IP: '0' })
})
afterAll(async () => {
  await restored?.stop()
  await w?.stop()
  fs.rmSync(dir, { recursive: true, force: true })
})

/** `pnpm db:backup <file>` or `pnpm db:restore <file>` as an operator runs it, on `databaseUrl`. */
function dbCommand(command: 'backup' | 'restore', file: string, databaseUrl: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = {
      PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
    }
    execFile(
      path.join(root, 'node_modules', '.bin', 'tsx'),
      [path.join(root, 'prisma', 'backup.ts'), command, file],
      { cwd: root, env, encoding: 'utf8' },
      (error: { code?: unknown } | null, stdout: string, stderr: string) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: stdout + stderr }),
    )
  })
}

describe('backup under load, then restore', () => {
  it('every token answers the same after a restore of a backup taken while the server was busy', async () => {
    // Tokens whose answers must survive: active ones, and one rotated (so inactive) before the backup.
    const kept: IssuedToken[] = []
    for (let i = 0; i < 12; i++) kept.push((await issuedGrant(w)).token)
    const rotatedAway = kept[0]!
    const rotation = await signedFetch(w.key, { method: 'POST', url: rotatedAway.manage, token: rotatedAway.value })
    expect(rotation.status).toBe(200)
    kept.push(((await rotation.json()) as { access_token: IssuedToken }).access_token)
    const before = await Promise.all(kept.map((t) => introspect(w.server, t.value)))
    expect(before.filter((a) => a.status === 200 && a.body.active)).toHaveLength(12)
    expect(before[0]!.body.active).toBe(false)

    // Load: new grants and rotations of other tokens, until the backup is done.
    let backingUp = true
    let duringBackup = 0
    const load = async () => {
      let token = (await issuedGrant(w)).token
      for (let i = 0; i < 2000 && backingUp; i++) {
        if (i % 2 === 0) {
          const res = await signedFetch(w.key, { method: 'POST', url: token.manage, token: token.value })
          expect(res.status).toBe(200)
          token = ((await res.json()) as { access_token: IssuedToken }).access_token
        } else {
          const res = await signedFetch(w.key, {
            method: 'POST',
            url: w.server.url,
            body: { access_token: { access: incomingAccess }, client: w.walletAddress },
          })
          expect(res.status).toBe(200)
        }
        duringBackup++
      }
    }
    const clients = Array.from({ length: 4 }, load)
    const backupFile = path.join(dir, 'gnap-backup.db')
    const backup = await dbCommand('backup', backupFile, `file:${w.server.dbFile}`)
    backingUp = false
    await Promise.all(clients)
    expect(backup, backup.output).toMatchObject({ code: 0, output: expect.stringMatching(/\[db:backup\] .*gnap-backup\.db: .* MiB in .* s/) })
    expect(duringBackup).toBeGreaterThan(0)

    // Not onto the database the running server uses.
    const refused = await dbCommand('restore', backupFile, `file:${w.server.dbFile}`)
    expect(refused.code).toBe(1)
    expect(refused.output).toMatch(/a server is using .*stop it/)

    const freshDir = fs.mkdtempSync(path.join(dir, 'restored-'))
    const freshFile = path.join(freshDir, 'gnap.db')
    const restore = await dbCommand('restore', backupFile, `file:${freshFile}`)
    expect(restore, restore.output).toMatchObject({ code: 0 })
    restored = await startServer({ DATABASE_URL: `file:${freshFile}` }, { dbFile: freshFile })
    expect((await fetch(`${restored.url}readyz`)).status).toBe(200)
    const after = await Promise.all(kept.map((t) => introspect(restored!, t.value)))
    expect(after).toEqual(before)
  })
})
