import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import { requestIdFor, runWithRequestId, type GnapConfig } from '@gnap/domain/kernel'
import { type Deps } from '@gnap/domain/protocol'
import { runWithSocketAddress } from '../edge/caller-ip'

// What this process does around every request, at the edge where node hands a request to a server (docs/protocol.md
// §2.19): the request id, the socket's peer address (for the wrong-secret limit, caller-ip.ts), and the count of requests in flight that a graceful stop waits for. It covers every HTTP
// server of the process, Next's own and the introspection listener, before any framework code runs.
//
// State lives on globalThis: Next loads this module in the instrumentation bundle and again in route bundles.

interface ProcessState {
  installed: boolean
  /** Set on SIGTERM/SIGINT: /readyz answers 503 from then on. */
  draining: boolean
  /** Requests that are not probes, received and not yet answered (or abandoned). */
  inFlight: number
  servers: Set<http.Server>
  /** Background work of this process that a graceful stop ends before the exit (the webhook worker). */
  stoppers: Set<(graceMs: number) => Promise<void>>
}

const KEY = Symbol.for('gnap.processEdge')
const state: ProcessState =
  ((globalThis as Record<symbol, unknown>)[KEY] as ProcessState | undefined) ??
  ((globalThis as Record<symbol, unknown>)[KEY] = {
    installed: false,
    draining: false,
    inFlight: 0,
    servers: new Set<http.Server>(),
    stoppers: new Set<(graceMs: number) => Promise<void>>(),
  })

/**
 * A server of this process that a graceful stop closes with the others once the requests in flight are done (the
 * introspection and metrics listeners), rather than at the signal: until then it keeps answering.
 */
export function closeWhenStopping(server: http.Server): void {
  state.servers.add(server)
}

/**
 * Background work that a graceful stop ends: `stop` is called at the signal with the time the stop may take (delay
 * plus grace), and the process exits once it has resolved and the requests in flight are done, or when that time is
 * over. The webhook worker stops claiming at once and lets the attempts it is sending finish.
 */
export function stopWhenStopping(stop: (graceMs: number) => Promise<void>): void {
  state.stoppers.add(stop)
}

/** Whether this process was told to stop (docs/protocol.md §2.19). */
export const isDraining = (): boolean => state.draining

/** `GET /healthz` and `/readyz`: not counted as work in flight (an orchestrator's probe must not hold a stop). */
const isProbe = (url: string | undefined): boolean => url !== undefined && /^\/(healthz|readyz)(\?|$)/.test(url)

/**
 * From now on every request any HTTP server of this process receives gets an id (from a trusted proxy's
 * `X-Request-Id`, else a fresh one), answered in `X-Request-Id` and carried by every log line written while it is
 * served; and it is counted while in flight. Node emits 'request' once per request, before the server's listener
 * runs, so wrapping that emit puts the whole of the request's work (the launcher's fair turns included) in its scope.
 */
export function installProcessEdge(config: Pick<GnapConfig, 'trustProxy'>): void {
  if (state.installed) return
  state.installed = true
  const emit = http.Server.prototype.emit as (this: http.Server, event: string | symbol, ...args: unknown[]) => boolean
  http.Server.prototype.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event !== 'request') return emit.call(this, event, ...args)
    const [req, res] = args as [IncomingMessage, ServerResponse]
    state.servers.add(this)
    const sent = req.headers['x-request-id']
    const requestId = requestIdFor(Array.isArray(sent) ? sent[0] : sent, config.trustProxy)
    res.setHeader('x-request-id', requestId)
    if (!isProbe(req.url)) {
      state.inFlight++
      res.once('close', () => state.inFlight--)
    }
    return runWithRequestId(requestId, () => runWithSocketAddress(req.socket?.remoteAddress, () => emit.call(this, event, ...args)))
  } as typeof http.Server.prototype.emit
}

/**
 * SIGTERM and SIGINT stop this process gracefully (docs/protocol.md §2.19): /readyz answers 503 at once, so a load
 * balancer takes the process out; it serves on as before for `delaySeconds` (the time the balancer needs to notice),
 * then the requests in flight finish, for at most `graceSeconds`; then the servers stop taking connections, idle
 * keep-alive connections are closed, and the process exits 0.
 * Next's own handler (which closes the port at once, so /readyz could not answer) is switched off by the launcher
 * with NEXT_MANUAL_SIG_HANDLE; under a plain `next start` both run.
 */
export function stopGracefullyOnSignals(
  { shutdownGraceSeconds: graceSeconds, shutdownDelaySeconds: delaySeconds }: Pick<GnapConfig, 'shutdownGraceSeconds' | 'shutdownDelaySeconds'>,
  log: Deps['log'],
): void {
  const onSignal = (signal: NodeJS.Signals) => {
    // A terminal's Ctrl-C reaches the launcher's workers twice (from the terminal and from the launcher): the
    // launcher, not the worker, decides that a second signal means now.
    if (state.draining) return
    state.draining = true
    log.info({ signal, inFlight: state.inFlight, delaySeconds, graceSeconds }, 'stopping: not ready any more, finishing the requests in flight')
    // SHUTDOWN_DELAY_SECONDS: serve on, not ready, until the load balancer has seen it; then drain.
    const deadline = Date.now() + (delaySeconds + graceSeconds) * 1000
    const drainFrom = Date.now() + delaySeconds * 1000
    // Background work stops at the signal: nothing new is taken on, what is under way finishes within the time left.
    let stopped = false
    void Promise.allSettled([...state.stoppers].map((stop) => stop((delaySeconds + graceSeconds) * 1000))).then(() => (stopped = true))
    const check = () => {
      if ((state.inFlight > 0 || !stopped || Date.now() < drainFrom) && Date.now() < deadline) return void setTimeout(check, 50)
      if (state.inFlight > 0 || !stopped)
        log.warn({ inFlight: state.inFlight, backgroundStopped: stopped }, 'grace period over: exiting with work in flight')
      else log.info('requests in flight finished: exiting')
      for (const server of state.servers) {
        server.close()
        server.closeIdleConnections()
      }
      // pino writes asynchronously: give the last lines a moment to leave.
      setTimeout(() => process.exit(0), 100)
    }
    check()
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
}
