// The vitest global setup of the HTTP suite: a pool of `next start` servers with the default test settings, for the
// files that need nothing else (`startWorld()` without settings). A file leases a server for its whole run and gives
// it back when it stops; the next such file gets the same server, so the suite starts one per file running at once
// instead of one per file. The database carries over from file to file: those files make their own clients, owners
// and grants, and compare counts only within themselves. The pool answers on loopback, at the URL it leaves in
// GNAP_TEST_SERVER_POOL for the test files (each runs in a process of its own).
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { startServer, type RunningServer } from '@gnap/test-support'

/** What a file gets when it leases a server. */
export interface LeasedServer {
  url: string
  port: number
  dbFile: string
  pid: number
}

export default async function setup(): Promise<() => Promise<void>> {
  const idle: RunningServer[] = []
  const servers = new Map<number, RunningServer>()
  const starts: Promise<RunningServer>[] = []
  const lease = async (): Promise<RunningServer> => {
    const ready = idle.pop()
    if (ready) return ready
    const starting = startServer()
    starts.push(starting)
    const server = await starting
    servers.set(server.port, server)
    return server
  }
  const pool = http.createServer((req, res) => {
    const [, action, port] = (req.url ?? '').split('/')
    const answer = (status: number, body: string) => res.writeHead(status, { 'content-type': 'text/plain' }).end(body)
    if (req.method === 'POST' && action === 'lease') {
      lease().then(
        (s) => answer(200, JSON.stringify({ url: s.url, port: s.port, dbFile: s.dbFile, pid: s.pid } satisfies LeasedServer)),
        (e: unknown) => answer(500, e instanceof Error ? e.message : String(e)),
      )
      return
    }
    const server = servers.get(Number(port))
    if (!server) return answer(404, `no server of the pool on port ${port}`)
    if (req.method === 'POST' && action === 'release') {
      idle.push(server)
      return answer(204, '')
    }
    if (req.method === 'GET' && action === 'logs') return answer(200, server.logs())
    answer(404, 'POST /lease, POST /release/<port>, GET /logs/<port>')
  })
  await new Promise<void>((resolve) => pool.listen(0, '127.0.0.1', resolve))
  process.env.GNAP_TEST_SERVER_POOL = `http://127.0.0.1:${(pool.address() as AddressInfo).port}/`
  return async () => {
    pool.close()
    const started = await Promise.allSettled(starts)
    await Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.stop() : undefined)))
  }
}
