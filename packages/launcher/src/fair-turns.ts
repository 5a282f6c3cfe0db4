// Fair turns of the event loop for a busy HTTP server: no stall at 256 concurrent connections.
//
// Since libuv 1.45 (libuv pull request 3696) a Node process accepts at most one new connection per turn of its event
// loop, and in one turn it runs, one after the other, the handlers of every request that arrived since the turn
// before. On a saturated process with N busy keep-alive connections a turn therefore lasts about N × (CPU time per
// request), and under a burst of new connections the k-th one waits about k such turns in the kernel's accept queue,
// long enough for some of them to time out.
//
// `fairTurns` wraps a request listener so that one turn spends at most `budgetMs` starting requests: a request that
// arrives once the turn has spent its budget (or while others are waiting) goes to a FIFO queue, and queued requests
// are started from later turns, each turn again within the budget. A turn then lasts the budget plus at most one
// request, the loop comes back to accept() every few milliseconds, and the waiting requests are served in the order
// they arrived rather than the order in which epoll reports their sockets. The work per request is unchanged; a
// request on an idle process runs at once, as without the wrapper.
import { AsyncResource } from 'node:async_hooks'
import http, { type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http'
import { performance } from 'node:perf_hooks'

/** What the launcher uses unless TURN_BUDGET_MS says otherwise (docs/operating.md, "Several processes on one machine"). */
export const DEFAULT_TURN_BUDGET_MS = 5

/**
 * What the queue tells the server's metrics (apps/web metrics.ts reads it from globalThis under this key, when the
 * process runs under the launcher): how many requests wait now, and `onWait`, told the wait of each request that
 * had to queue, in seconds.
 */
export const FAIR_TURNS_STATS = Symbol.for('gnap.fairTurns')
export interface FairTurnsStats {
  waiting(): number
  onWait: ((seconds: number) => void) | null
}

export interface FairTurnsOptions {
  /** Milliseconds one turn of the event loop may spend starting requests; 0 returns the listener unwrapped. Default 5. */
  budgetMs?: number
  /** A clock in milliseconds (tests). Default: performance.now. */
  now?: () => number
  /** Where the queue's length and waits are published (FairTurnsStats). */
  stats?: FairTurnsStats
}

/**
 * Wraps `listener` (an `http.Server` 'request' listener). `budgetMs`: the time one turn of the event loop may spend
 * before further requests wait for a later turn. `now`: a clock in milliseconds (tests).
 */
export function fairTurns(
  listener: RequestListener,
  { budgetMs = DEFAULT_TURN_BUDGET_MS, now = () => performance.now(), stats }: FairTurnsOptions = {},
): RequestListener {
  if (!(budgetMs > 0)) return listener
  /** Waiting requests, oldest first: [req, when it was queued, the listener's call on it, in the request's own asynchronous context]. */
  const queue: [IncomingMessage, number, () => void][] = []
  if (stats) stats.waiting = () => queue.length
  // The budget is counted from the first request work of a turn of the event loop and renewed by a zero-delay timer,
  // which runs in the timers phase at the start of the next turn: so a poll phase, where libuv accepts connections
  // and reads sockets, separates any two budgets' worth of requests.
  let turnOpen = false
  let turnStart = 0
  const closeTurn = () => {
    turnOpen = false
  }
  const openTurn = () => {
    if (turnOpen) return
    turnOpen = true
    turnStart = now()
    setTimeout(closeTurn, 0)
  }
  const spent = () => now() - turnStart >= budgetMs
  // One pending `step` per queued request. Node runs the immediates of one check phase one by one with the
  // microtasks of each drained in between, so the handler a step starts has done its synchronous work, and the
  // promise continuations that follow it, before the next step looks at the clock.
  const step = (): void => {
    openTurn()
    if (spent()) return void setImmediate(step)
    let next
    while ((next = queue.shift())) {
      const [req, queuedAt, run] = next
      // A client that gave up while its request waited (a timeout, a closed tab) gets no answer anyway: its request
      // is not run, so an overloaded server does not spend its time on answers nobody reads. (Node destroys a
      // request when its connection ends before the answer; a waiting request has no answer yet.)
      if (req.destroyed || req.socket?.destroyed) continue
      stats?.onWait?.((now() - queuedAt) / 1000)
      run()
      return
    }
  }
  return function fairListener(this: http.Server, req: IncomingMessage, res: ServerResponse) {
    // An orchestrator's health and readiness probes never wait behind the queue: a busy process is not a dead one.
    openTurn()
    if (isProbe(req.url) || (queue.length === 0 && !spent())) return listener.call(this, req, res)
    // Run later, but as part of this request (its request id, docs/protocol.md §2.19), whichever step starts it.
    queue.push([req, now(), AsyncResource.bind(() => listener.call(this, req, res))])
    setImmediate(step)
  }
}

/** `GET /healthz` and `GET /readyz` (docs/protocol.md §2.19), with or without a query. */
const isProbe = (url: string | undefined): boolean => url !== undefined && /^\/(healthz|readyz)(\?|$)/.test(url)

/**
 * Makes the next `http.createServer(listener)` call of this process (the one `next start` makes for its server)
 * wrap its listener with `fairTurns`, then puts `http.createServer` back as it was.
 */
export function installFairTurns(options?: FairTurnsOptions): void {
  // Published for the server's metrics, which this process loads later (FAIR_TURNS_STATS).
  const stats: FairTurnsStats = { waiting: () => 0, onWait: null }
  ;(globalThis as Record<symbol, unknown>)[FAIR_TURNS_STATS] = stats
  options = { ...options, stats }
  const createServer = http.createServer
  const createFairServer = function (this: unknown, ...args: unknown[]) {
    http.createServer = createServer
    const i = args.findIndex((a) => typeof a === 'function')
    if (i >= 0) args[i] = fairTurns(args[i] as RequestListener, options)
    return (createServer as (...a: unknown[]) => http.Server).apply(this, args)
  }
  http.createServer = createFairServer as typeof http.createServer
}
