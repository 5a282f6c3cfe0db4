import { SpanKind, SpanStatusCode, context, propagation, trace, type Attributes, type Span } from '@opentelemetry/api'

// The tracing port (docs/operating.md "Traces"). The domain names what it does (a request, a statement, a signature
// check, an outbound call) through these few functions; the process edge decides whether anything records them. Off
// (no OTEL_EXPORTER_OTLP_ENDPOINT): no SDK is loaded, the switch stays off and every function here runs its work
// without touching the OpenTelemetry API, so no span object is ever made.
//
// Attributes are the caller's choice and must never hold a token value, secret, interact_ref, cookie or signature:
// every caller passes only names (route templates, operations, tables, hosts) and statuses.

// Kept on the process's global object, not in this module: Next compiles the domain into each of its bundles (the
// instrumentation hook's and the routes'), and all of them must see the switch the start-up code turned on.
const ON = Symbol.for('gnap.tracing.enabled')
const state = globalThis as { [ON]?: boolean }

/** Called once by the process edge after it has registered a tracer provider and the W3C propagator. */
export function enableTracing(): void {
  state[ON] = true
}

export const tracingEnabled = (): boolean => state[ON] === true

const tracer = () => trace.getTracer('gnap-as')

/**
 * `fn` inside a child span of the active one; the span ends when `fn` settles, with an error status if it throws.
 * Only under a recording span (a sampled request's): a statement of a background job or of an unsampled request makes
 * no span, and so no trace of its own. `root: true` (an outbound call, which a webhook delivery makes outside any
 * request) starts a trace when there is none.
 */
export function inSpan<T>(name: string, attributes: Attributes, fn: () => Promise<T>, kind: SpanKind = SpanKind.INTERNAL, root = false): Promise<T> {
  if (!tracingEnabled()) return fn()
  if (!root && trace.getActiveSpan()?.isRecording() !== true) return fn()
  return tracer().startActiveSpan(name, { kind, attributes }, (span) => settle(span, fn))
}

/**
 * A server span for one incoming request, continuing the caller's `traceparent` (W3C Trace Context) when the
 * request carries one and no span is already active for it. `name` is the route template (`POST /token/{id}`), never
 * a path with ids. `fn` receives a setter for the answer's status.
 */
export function inRequestSpan<T>(
  name: string,
  headers: { get(name: string): string | null } | Record<string, string | string[] | undefined>,
  attributes: Attributes,
  fn: (status: (code: number) => void) => Promise<T>,
): Promise<T> {
  if (!tracingEnabled()) return fn(() => {})
  // Under a recording request span already (none today: Next's tracer is silenced at start), an internal child;
  // otherwise the server span, continuing the caller's traceparent.
  const inner = trace.getActiveSpan()?.isRecording() === true
  const parent = inner ? context.active() : propagation.extract(context.active(), headers, HEADER_GETTER)
  const kind = inner ? SpanKind.INTERNAL : SpanKind.SERVER
  return tracer().startActiveSpan(name, { kind, attributes }, parent, (span) =>
    settle(span, () =>
      fn((code) => {
        span.setAttribute('http.response.status_code', code)
        if (code >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
      }),
    ),
  )
}

/** The W3C `traceparent` (and `tracestate`) of the active span, to pass on an outbound request; {} when off. */
export function traceHeaders(): Record<string, string> {
  if (!tracingEnabled()) return {}
  const carrier: Record<string, string> = {}
  propagation.inject(context.active(), carrier)
  return carrier
}

/** The active span's ids for a log line, or undefined (tracing off or no span). */
export function activeTraceIds(): { trace_id: string; span_id: string } | undefined {
  if (!tracingEnabled()) return undefined
  const span = trace.getActiveSpan()
  if (!span) return undefined
  const { traceId, spanId } = span.spanContext()
  return { trace_id: traceId, span_id: spanId }
}

/** The active sampled span's trace id, for a metrics exemplar; undefined otherwise. */
export function sampledTraceId(): string | undefined {
  if (!tracingEnabled()) return undefined
  const ctx = trace.getActiveSpan()?.spanContext()
  return ctx && (ctx.traceFlags & 1) === 1 ? ctx.traceId : undefined
}

async function settle<T>(span: Span, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (e) {
    // The error's class only: a message may quote input.
    span.setStatus({ code: SpanStatusCode.ERROR })
    span.setAttribute('error.type', e instanceof Error ? e.name : typeof e)
    throw e
  } finally {
    span.end()
  }
}

const HEADER_GETTER = {
  keys: (carrier: unknown): string[] => {
    if (carrier && typeof (carrier as Headers).keys === 'function') return [...(carrier as Headers).keys()]
    return Object.keys(carrier as object)
  },
  get: (carrier: unknown, key: string): string | string[] | undefined => {
    if (carrier && typeof (carrier as Headers).get === 'function') return (carrier as Headers).get(key) ?? undefined
    return (carrier as Record<string, string | string[] | undefined>)[key]
  },
}

/** The first word of a statement and the table it names: `SELECT "Grant"`, never a value. */
export function statementSummary(sql: string): { operation: string; table: string } {
  const operation = (/^\s*(\w+)/.exec(sql)?.[1] ?? 'SQL').toUpperCase()
  const table = /\b(?:FROM|INTO|UPDATE|TABLE)\s+"?(\w+)"?/i.exec(sql)?.[1] ?? ''
  return { operation, table }
}

export { SpanKind }
