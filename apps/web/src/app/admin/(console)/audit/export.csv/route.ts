import { createContext } from '@gnap/api'
import { ADMIN_COOKIE, isDatabaseUnavailable, isGnapError, readCookie, UNAVAILABLE_RETRY_AFTER_SECONDS } from '@gnap/domain/kernel'
import { CONSOLE_ERROR_STATUS, type ConsoleErrorCode, admitApiKeyCall, auditLogCsv, roleAllows } from '@gnap/domain/operator'
import { getDeps } from '../../../../../server/process/deps'
import { callerIp } from '../../../../../server/edge/caller-ip'
import { parseAuditQuery, toAuditFilters } from '../../../_lib/audit-query'

export const dynamic = 'force-dynamic'

// GET /admin/audit/export.csv?actor=…&action=…: the audit log as CSV, with the console page's filters
// (docs/protocol.md §2.15). Not a tRPC procedure, since its answer is a file streamed page by page, but the caller
// is resolved by the API's own createContext, as for every procedure: the same sessions (and whatever else that
// context accepts) with the same roles. Every role may export, as every role may read the log.

/** A refusal with the status of its console code (docs/protocol.md §2.18's one table); bad input says `invalid_request`. */
const refuse = (kind: ConsoleErrorCode, description: string, headers: Record<string, string> = {}) =>
  Response.json(
    { error: { code: kind === 'bad_request' ? 'invalid_request' : kind, description } },
    { status: CONSOLE_ERROR_STATUS[kind], headers: { 'cache-control': 'no-store', ...headers } },
  )

const unavailable = () =>
  refuse('service_unavailable', 'the service is temporarily unavailable: try again later', {
    'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS),
  })

/** `audit-log-20261125T121500Z.csv`: when the export was made, in UTC. */
const fileName = (now: Date) =>
  `audit-log-${now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}.csv`

export async function GET(req: Request): Promise<Response> {
  try {
    const deps = await getDeps()
    const ctx = await createContext({
      deps,
      sessionValue: readCookie(req.headers.get('cookie'), ADMIN_COOKIE),
      authorization: req.headers.get('authorization'),
      csrfToken: null,
      ip: callerIp(req, deps.config),
    })
    // The same refusals as every procedure's (docs/protocol.md §2.18, §2.17): one kind of credential, a live key,
    // a person who has enrolled when the server requires it, and a key's calls counted against its limit.
    if (ctx.credentialProblem === 'both') return refuse('bad_request', 'send either the session cookie or an API key, not both')
    if (!ctx.actor) return refuse('unauthorized', 'sign in as an administrator')
    if (ctx.mustEnrol) return refuse('forbidden', 'turn on two-step sign-in first: this server requires it')
    if (!roleAllows(ctx.actor.role, 'viewer')) return refuse('forbidden', `this needs the viewer role; yours is ${ctx.actor.role}`)

    if (ctx.apiKey) {
      try {
        await admitApiKeyCall(deps, ctx.apiKey)
      } catch (e) {
        if (!isGnapError(e) || e.retryAfterSeconds === undefined) throw e
        return refuse('too_many_requests', e.message, { 'retry-after': String(e.retryAfterSeconds) })
      }
    }

    const { query, invalid } = parseAuditQuery(new URL(req.url).searchParams)
    // Never more than was asked for: a filter that cannot be read is refused, not dropped.
    if (invalid.length > 0) return refuse('bad_request', `invalid filter: ${invalid.join(', ')}`)
    const chunks = auditLogCsv(deps, toAuditFilters(query), { tenantId: ctx.actor.tenantId })
    // The first page is read before answering, so a failing database answers 503 rather than a cut file.
    const first = await chunks.next()
    const encoder = new TextEncoder()
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        if (!first.done) controller.enqueue(encoder.encode(first.value))
      },
      // One page per pull: the stream asks for the next page when the client has read the last one.
      async pull(controller) {
        try {
          const next = await chunks.next()
          if (next.done) controller.close()
          else controller.enqueue(encoder.encode(next.value))
        } catch (e) {
          deps.log.error({ err: e }, 'audit export failed part way')
          // The download fails visibly instead of ending as if complete.
          controller.error(e)
        }
      },
      async cancel() {
        await chunks.return(undefined)
      },
    })
    return new Response(body, {
      status: 200,
      headers: {
        'content-type': 'text/csv; charset=utf-8; header=present',
        'content-disposition': `attachment; filename="${fileName(deps.clock())}"`,
        'cache-control': 'no-store',
      },
    })
  } catch (e) {
    // docs/protocol.md §9: the database is unreachable for now.
    if (isDatabaseUnavailable(e)) return unavailable()
    throw e
  }
}
