import { AsyncLocalStorage } from 'node:async_hooks'
import {
  ROOT_CONTEXT,
  context,
  trace,
  type Context,
  type ContextManager,
  type Span,
  type SpanOptions,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDb } from '../testing/test-db'
import { enableTracing, inRequestSpan, inSpan, statementSummary, traceHeaders, activeTraceIds } from './tracing'

// The tracing port (docs/operating.md "Traces"): off, nothing reaches the OpenTelemetry API, so no span is made even
// if some provider is registered; on, statements are named by operation and table, and their values never recorded.

const started: { name: string; attributes: SpanOptions['attributes'] }[] = []
let tracerAsked = 0

/** A tracer provider that records the spans asked for. */
const recording: TracerProvider = {
  getTracer(): Tracer {
    tracerAsked++
    const span = (): Span =>
      ({
        end() {},
        setAttribute() {
          return this
        },
        setStatus() {
          return this
        },
        spanContext: () => ({ traceId: '1'.repeat(32), spanId: '2'.repeat(16), traceFlags: 1 }),
        isRecording: () => true,
      }) as unknown as Span
    return {
      startSpan: (name: string, options?: SpanOptions) => {
        started.push({ name, attributes: options?.attributes })
        return span()
      },
      startActiveSpan: (name: string, options: SpanOptions, ...rest: unknown[]) => {
        started.push({ name, attributes: options.attributes })
        const fn = rest[rest.length - 1] as (s: Span) => unknown
        const parent = rest.length > 1 ? (rest[0] as Context) : context.active()
        const s = span()
        return context.with(trace.setSpan(parent, s), () => fn(s))
      },
    } as Tracer
  },
}

/** The SDK's AsyncLocalStorage context manager, in its few lines (the domain does not depend on the SDK). */
const storage = new AsyncLocalStorage<Context>()
const contexts: ContextManager = {
  active: () => storage.getStore() ?? ROOT_CONTEXT,
  with: (ctx, fn, thisArg, ...args) => storage.run(ctx, () => fn.call(thisArg, ...args)),
  bind: (_ctx, target) => target,
  enable() {
    return this
  },
  disable() {
    return this
  },
}

let t: Awaited<ReturnType<typeof createTestDb>>
beforeAll(async () => {
  context.setGlobalContextManager(contexts)
  trace.setGlobalTracerProvider(recording)
  t = await createTestDb()
})
afterAll(async () => {
  trace.disable()
  context.disable()
  await t.cleanup()
})

const secret = 'never-in-a-span-7f3a'
const statement = () => t.store.sql.all(`SELECT "nonce" FROM "SignatureNonce" WHERE "nonce" = $1`, [secret])

describe('with tracing off (the default)', () => {
  it('asks the OpenTelemetry API for nothing: no tracer, no span, no header, no log ids', async () => {
    await inSpan('x', {}, () => Promise.resolve(1))
    await inRequestSpan('POST /', new Headers({ traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` }), {}, () => Promise.resolve(1))
    await statement()
    await t.store.sql.transaction((tx) => tx.run(`DELETE FROM "SignatureNonce" WHERE "nonce" = $1`, [secret]))
    expect(traceHeaders()).toEqual({})
    expect(activeTraceIds()).toBeUndefined()
    expect(tracerAsked).toBe(0)
    expect(started).toEqual([])
  })
})

describe('with tracing on', () => {
  it('names a statement by its operation and table, and records none of its values', async () => {
    enableTracing()
    // Outside a request (a background job): no span.
    await statement()
    expect(started).toEqual([])
    await inRequestSpan('POST /token/[id]', new Headers(), {}, async () => {
      await statement()
      await t.store.sql.transaction((tx) => tx.run(`DELETE FROM "SignatureNonce" WHERE "nonce" = $1`, [secret]))
    })
    expect(started.map((s) => s.name)).toEqual(['POST /token/[id]', 'SELECT SignatureNonce', 'db.transaction', 'DELETE SignatureNonce'])
    // The database this suite runs on: SQLite, or PostgreSQL with TEST_DATABASE_URL.
    expect(started[1]!.attributes).toEqual({
      'db.system.name': t.store.sql.dialect,
      'db.operation.name': 'SELECT',
      'db.collection.name': 'SignatureNonce',
    })
    expect(JSON.stringify(started)).not.toContain(secret)
  })
})

describe('statementSummary', () => {
  it.each([
    ['INSERT INTO "AccessToken" ("id") VALUES ($1)', 'INSERT', 'AccessToken'],
    ['UPDATE "Grant" SET "state" = $1 WHERE "id" = $2', 'UPDATE', 'Grant'],
    ['DELETE FROM "SignatureNonce" WHERE "expiresAt" < $1', 'DELETE', 'SignatureNonce'],
    ['  select t."id" from "AccessToken" t join "Grant" g on g."id" = t."grantId"', 'SELECT', 'AccessToken'],
    ['LOCK TABLE "RateLimit" IN EXCLUSIVE MODE', 'LOCK', 'RateLimit'],
  ])('%s', (sql, operation, table) => {
    expect(statementSummary(sql)).toEqual({ operation, table })
  })
})
