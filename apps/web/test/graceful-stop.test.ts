// What an orchestrator relies on, with the launcher (docs/protocol.md §2.19): on SIGTERM /readyz answers 503 at once,
// the request in flight (here a client still sending its body) finishes and is answered, then the launcher exits 0.
// A worker that crashes is replaced, and /readyz answers 200 meanwhile from the worker that still serves.
import { execFileSync } from 'node:child_process'
import http from 'node:http'
import { afterAll, describe, expect, it } from 'vitest'
import { INTROSPECTION_SECRET, startInstance, testServerEnv, type Instance } from '@gnap/test-support'
import { freshDatabase, type TestDatabase } from './support/databases'
import { sleep } from './support/world'

const started: Instance[] = []
const databases: TestDatabase[] = []
afterAll(async () => {
  await Promise.all(started.map((i) => i.stop()))
  await Promise.all(databases.map((d) => d.drop()))
})

async function launch(workers: number, env: Record<string, string> = {}): Promise<Instance> {
  const db = await freshDatabase('sqlite', 'graceful')
  databases.push(db)
  const instance = await startInstance({
    env: testServerEnv({ DATABASE_URL: db.url, SHUTDOWN_GRACE_SECONDS: '20', SHUTDOWN_TIMEOUT_SECONDS: '40', ...env }),
    workers,
  })
  started.push(instance)
  return instance
}

/** /readyz on a new connection: its status, or the error's code when nothing answered. */
async function readyz(instance: Instance): Promise<number | string> {
  try {
    const res = await fetch(`${instance.url}readyz`, { headers: { connection: 'close' }, signal: AbortSignal.timeout(10_000) })
    await res.text()
    return res.status
  } catch (e) {
    return String((e as { cause?: { code?: string } }).cause?.code ?? e)
  }
}

/** The launcher's worker processes. */
const workersOf = (instance: Instance): number[] =>
  execFileSync('pgrep', ['-P', String(instance.pid)], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map(Number)

describe('graceful behaviour under the launcher', () => {
  it('SIGTERM: not ready at once, the request in flight is answered, then exit 0', async () => {
    const instance = await launch(2)
    expect(await readyz(instance)).toBe(200)

    // An introspection whose client sends its body slowly: in flight until the last byte comes.
    const body = JSON.stringify({ access_token: 'some-token-that-does-not-exist' })
    const half = Math.floor(body.length / 2)
    let notReady: (status: number | string) => void = () => undefined
    const stoppedAndNotReady = new Promise<number | string>((resolve) => (notReady = resolve))
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(`${instance.url}introspect`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(body.length), authorization: `Bearer ${INTROSPECTION_SECRET}` },
      })
      req.on('response', (res) => {
        let text = ''
        res.on('data', (d: Buffer) => (text += d.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
      })
      req.on('error', reject)
      req.write(body.slice(0, half))
      // The rest once the server was told to stop and said it is not ready.
      void stoppedAndNotReady.then(() => req.end(body.slice(half)))
    })
    // The request has reached a worker once its headers were read there.
    await sleep(500)
    process.kill(instance.pid, 'SIGTERM')
    let status: number | string = 0
    for (let i = 0; i < 50 && status !== 503; i++) {
      status = await readyz(instance)
      if (status !== 503) await sleep(100)
    }
    notReady(status)
    expect(status).toBe(503)
    const res = await answer
    expect(res).toEqual({ status: 200, text: JSON.stringify({ active: false }) })
    expect(await instance.exited).toBe(0)
  })

  it('SIGTERM with SHUTDOWN_DELAY_SECONDS: an idle process still answers, not ready, until the delay is over, then exits 0', async () => {
    const instance = await launch(1, { SHUTDOWN_DELAY_SECONDS: '3' })
    expect(await readyz(instance)).toBe(200)
    const signalled = Date.now()
    process.kill(instance.pid, 'SIGTERM')
    // With nothing in flight a process without the delay closes its port at once; with it, the balancer's checks
    // keep finding it there, not ready, for the whole delay.
    await sleep(1000)
    expect(await readyz(instance)).toBe(503)
    await sleep(1000)
    expect(await readyz(instance)).toBe(503)
    expect(await instance.exited).toBe(0)
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(3000)
  }, 60_000)

  it('a crashed worker is replaced, and /readyz stays 200 while the other one serves', async () => {
    const instance = await launch(2)
    const [first, second] = workersOf(instance)
    expect(second).toBeDefined()
    process.kill(first!, 'SIGKILL')
    // Once the launcher saw it die (a connection it was handing to that worker at that instant is lost with it),
    // and while its replacement starts, the other worker answers.
    for (let i = 0; i < 100 && !instance.logs().includes('died'); i++) await sleep(50)
    expect(instance.logs()).toMatch(/worker \d \(pid \d+\) died \(signal SIGKILL\)/)
    for (let i = 0; i < 10; i++) expect(await readyz(instance)).toBe(200)
    // Replaced: two workers again, the new one ready.
    let now: number[] = []
    for (let i = 0; i < 300; i++) {
      now = workersOf(instance)
      if (now.length === 2 && !now.includes(first!) && instance.logs().includes('died')) break
      await sleep(100)
    }
    expect(now, instance.logs()).toHaveLength(2)
    expect(now).not.toContain(first)
    for (let i = 0; i < 10; i++) expect(await readyz(instance)).toBe(200)
  }, 90_000)
})
