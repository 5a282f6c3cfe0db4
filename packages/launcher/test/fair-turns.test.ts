// The launcher's fair turns (src/fair-turns.ts): a busy worker's event loop spends a bounded time on
// requests per turn, so it keeps coming back to accept new connections and to its other I/O. Exercised on a real
// loopback HTTP server in this process: a burst of requests arrives in one turn, and a timer set by the first
// handler shows when the loop gets its next turn.
import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import net from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { fairTurns, installFairTurns, type FairTurnsStats } from '../src/fair-turns.js'

/** Keeps the CPU busy for `ms`, as a request's synchronous work does. */
function burn(ms: number): void {
  const end = performance.now() + ms
  while (performance.now() < end) {
    // busy
  }
}

const servers: http.Server[] = []
const sockets: net.Socket[] = []
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy()
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))))
})

async function listen(server: http.Server): Promise<number> {
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as net.AddressInfo).port
}

/** `n` connections, each accepted by the server (the server, idle, takes one per turn). */
async function connect(server: http.Server, port: number, n: number): Promise<net.Socket[]> {
  let accepted = 0
  const all = new Promise<void>((resolve) => {
    const onConnection = () => {
      if (++accepted < n) return
      server.off('connection', onConnection)
      resolve()
    }
    server.on('connection', onConnection)
  })
  const mine = Array.from({ length: n }, () => net.connect(port, '127.0.0.1'))
  sockets.push(...mine)
  await all
  return mine
}

/** Sends one request on each socket in one go, and resolves with each socket's whole answer once it closed. */
function requestAll(conns: net.Socket[], path: (i: number) => string): Promise<string[]> {
  const answers = conns.map(
    (s) =>
      new Promise<string>((resolve) => {
        let text = ''
        s.on('data', (d) => (text += d.toString()))
        s.on('close', () => resolve(text))
      }),
  )
  conns.forEach((s, i) => s.write(`GET ${path(i)} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n`))
  return Promise.all(answers)
}

/**
 * A server whose handler burns `costMs` per request and whose first request sets a timer: `nextTurnSaw` is how many
 * requests had been handled when the event loop next ran its timers, i.e. in the turn the burst arrived in.
 */
function burstServer(wrap: (l: http.RequestListener) => http.RequestListener, costMs: number) {
  const state = { handled: 0, nextTurnSaw: -1 }
  const server = http.createServer(
    wrap((_req: IncomingMessage, res: ServerResponse) => {
      if (state.handled === 0) setTimeout(() => (state.nextTurnSaw = state.handled), 0)
      burn(costMs)
      state.handled++
      res.end('ok')
    }),
  )
  return { server, state }
}

describe('fair turns', () => {
  const burst = 40
  const costMs = 4

  it('a burst of requests on a busy server leaves the event loop every few requests, and every request is answered', async () => {
    const { server, state } = burstServer((l) => fairTurns(l, { budgetMs: 5 }), costMs)
    const port = await listen(server)
    const answers = await requestAll(await connect(server, port, burst), (i) => `/${i}`)
    expect(answers.every((a) => a.startsWith('HTTP/1.1 200'))).toBe(true)
    expect(state.handled).toBe(burst)
    // 5 ms per turn at 4 ms per request: the loop's next turn comes after two or three of the 40.
    expect(state.nextTurnSaw).toBeGreaterThan(0)
    expect(state.nextTurnSaw).toBeLessThan(8)
  })

  it('without it, the whole burst runs in the turn it arrived in (what a new connection would wait for)', async () => {
    const { server, state } = burstServer((l) => l, costMs)
    const port = await listen(server)
    await requestAll(await connect(server, port, burst), (i) => `/${i}`)
    expect(state.nextTurnSaw).toBe(burst)
  })

  it('a busy server still accepts a new connection within a turn or two', async () => {
    const { server, state } = burstServer((l) => fairTurns(l, { budgetMs: 5 }), costMs)
    const port = await listen(server)
    const conns = await connect(server, port, burst)
    let handledAtAccept = -1
    server.once('connection', () => (handledAtAccept = state.handled))
    const answers = requestAll(conns, (i) => `/${i}`)
    // Connect once the burst is being served: the new connection is accepted long before the 40 are done.
    while (state.handled === 0) await new Promise((resolve) => setImmediate(resolve))
    const late = await connect(server, port, 1)
    const [lateAnswer] = await requestAll(late, () => '/late')
    await answers
    expect(lateAnswer).toMatch(/^HTTP\/1\.1 200/)
    expect(handledAtAccept).toBeGreaterThan(0)
    expect(handledAtAccept).toBeLessThan(12)
  })

  it('tells the metrics how many requests wait, and how long each queued one waited', async () => {
    let clock = 0
    const stats: FairTurnsStats = { waiting: () => -1, onWait: null }
    const waits: number[] = []
    stats.onWait = (seconds) => waits.push(seconds)
    const listener = fairTurns(() => void (clock += 3), { budgetMs: 5, now: () => clock, stats })
    const fake = (url: string) => ({ url, socket: { destroyed: false } }) as unknown as IncomingMessage
    const res = {} as ServerResponse
    expect(stats.waiting()).toBe(0)
    for (const url of ['/first', '/second', '/a', '/b']) listener(fake(url), res)
    // Two ran (6 ms of the 5 ms budget spent), two wait; the ones that ran at once were never queued.
    expect(stats.waiting()).toBe(2)
    expect(waits).toEqual([])
    await vi.waitFor(() => expect(stats.waiting()).toBe(0), { timeout: 5_000, interval: 5 })
    // Each waited from when it was queued (clock 6) until it started: 0 ms for the first, 3 ms for the next.
    expect(waits).toEqual([0, 0.003])
  })

  it('runs a request at once on an idle server, and queued ones from later turns in the order they came', async () => {
    // A fake clock that each request advances by 3 ms, as its synchronous work would. (How many run per turn is
    // shown on a real server above; here, with real timers deciding where turns begin, only the order is certain.)
    let clock = 0
    const ran: string[] = []
    const listener = fairTurns(
      (req: IncomingMessage) => {
        ran.push(req.url!)
        clock += 3
      },
      { budgetMs: 5, now: () => clock },
    )
    const fake = (url: string) => ({ url, socket: { destroyed: false } }) as unknown as IncomingMessage
    const res = {} as ServerResponse
    listener(fake('/first'), res)
    listener(fake('/second'), res)
    // 6 ms spent in this turn: these wait for a later one.
    listener(fake('/a'), res)
    listener(fake('/b'), res)
    listener(fake('/c'), res)
    expect(ran).toEqual(['/first', '/second'])
    await vi.waitFor(() => expect(ran).toHaveLength(5), { timeout: 5_000, interval: 5 })
    expect(ran).toEqual(['/first', '/second', '/a', '/b', '/c'])
  })

  it('does not run a queued request whose client went away while it waited', async () => {
    const ran: string[] = []
    const server = http.createServer(
      fairTurns(
        (req: IncomingMessage, res: ServerResponse) => {
          ran.push(req.url!)
          if (req.url === '/slow') burn(20)
          res.end('ok')
        },
        { budgetMs: 5 },
      ),
    )
    const port = await listen(server)
    const [slow, gone, stays] = await connect(server, port, 3)
    const answers = requestAll([slow!, stays!], (i) => (i === 0 ? '/slow' : '/stays'))
    gone!.write('GET /gone HTTP/1.1\r\nHost: test\r\n\r\n')
    gone!.destroy()
    const [slowAnswer, staysAnswer] = await answers
    expect(slowAnswer).toMatch(/^HTTP\/1\.1 200/)
    expect(staysAnswer).toMatch(/^HTTP\/1\.1 200/)
    expect(ran).toContain('/slow')
    expect(ran).toContain('/stays')
    expect(ran).not.toContain('/gone')
  })

  it('is taken by the next server created, and only that one', async () => {
    const before = http.createServer
    installFairTurns({ budgetMs: 5 })
    expect(http.createServer).not.toBe(before)
    const { server, state } = burstServer((l) => l, costMs)
    expect(http.createServer).toBe(before)
    const port = await listen(server)
    await requestAll(await connect(server, port, burst), (i) => `/${i}`)
    expect(state.nextTurnSaw).toBeLessThan(8)
  })
})

describe('fair turns and the orchestrator', () => {
  const fake = (url: string) => ({ url, socket: { destroyed: false } }) as unknown as IncomingMessage
  const res = {} as ServerResponse

  it('runs a health or readiness probe at once, ahead of the requests waiting for a later turn', () => {
    let clock = 0
    const ran: string[] = []
    const listener = fairTurns(
      (req: IncomingMessage) => {
        ran.push(req.url!)
        clock += 10
      },
      { budgetMs: 5, now: () => clock },
    )
    listener(fake('/first'), res)
    listener(fake('/waits'), res)
    listener(fake('/healthz'), res)
    listener(fake('/readyz?full=1'), res)
    listener(fake('/healthzz'), res)
    expect(ran).toEqual(['/first', '/healthz', '/readyz?full=1'])
  })

  it('runs a queued request in its own asynchronous context (its request id), not in the one of the turn that starts it', async () => {
    const { AsyncLocalStorage } = await import('node:async_hooks')
    const ids = new AsyncLocalStorage<string>()
    let clock = 0
    const seen: [string, string | undefined][] = []
    const listener = fairTurns(
      (req: IncomingMessage) => {
        seen.push([req.url!, ids.getStore()])
        clock += 10
      },
      { budgetMs: 5, now: () => clock },
    )
    // `/gone`'s client leaves while it waits: the turn meant for it starts the next request instead.
    const gone = { url: '/gone', socket: { destroyed: true } } as unknown as IncomingMessage
    ids.run('a', () => listener(fake('/a'), res))
    ids.run('gone', () => listener(gone, res))
    for (const name of ['c', 'd']) ids.run(name, () => listener(fake(`/${name}`), res))
    await vi.waitFor(() => expect(seen).toHaveLength(3), { timeout: 5_000, interval: 5 })
    expect(seen).toEqual([
      ['/a', 'a'],
      ['/c', 'c'],
      ['/d', 'd'],
    ])
  })
})
