import { initTRPC, TRPCError, type TRPC_ERROR_CODE_KEY } from '@trpc/server'
import superjson from 'superjson'
import type { z } from 'zod'
import type { Deps } from '@gnap/domain/protocol'
import { isDatabaseUnavailable, isGnapError, serviceUnavailable, type GnapErrorCode } from '@gnap/domain/kernel'
import {
  consoleCodeForStatus,
  isConsoleError,
  roleAllows,
  admitApiKeyCall,
  type AdminRole,
  type ConsoleActor,
  type ConsoleErrorCode,
} from '@gnap/domain/operator'
import type { Context } from './context'

// The only initTRPC of the repository. Dates cross the wire through superjson, so the browser's
// client must use the same transformer.

/** The tRPC code of a console code: its upper case (the console's codes follow tRPC's). */
export const trpcCodeOf = (code: ConsoleErrorCode) => code.toUpperCase() as Uppercase<ConsoleErrorCode> & TRPC_ERROR_CODE_KEY

/** The tRPC code for a GnapError's HTTP status (sign-in's 429), through the console's status table. */
function trpcCodeForStatus(status: number): TRPC_ERROR_CODE_KEY {
  const code = consoleCodeForStatus(status)
  if (code) return trpcCodeOf(code)
  return status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST'
}

interface Issue {
  path?: readonly PropertyKey[] | readonly { key: PropertyKey }[]
  message: string
}

const hasIssues = (e: unknown): e is { issues: Issue[] } =>
  typeof e === 'object' && e !== null && Array.isArray((e as { issues?: unknown }).issues) && (e as { issues: unknown[] }).issues.length > 0

/** `filters.limit: Too big…`: the first problem of a refused input, readable in the console. */
function describeIssues(e: { issues: Issue[] }): string {
  const first = e.issues[0]
  if (!first) return 'invalid input'
  const path = (first.path ?? []).map((p) => String(typeof p === 'object' && p !== null && 'key' in p ? p.key : p)).join('.')
  return path ? `${path}: ${first.message}` : first.message
}

/**
 * What a caller may read of a refusal: domain messages and input issues, never an internal error's message (it may
 * quote SQL or a value). For tRPC's answers and the REST form's (docs/protocol.md §2.18).
 */
export function publicMessage(error: TRPCError): string {
  const cause = error.cause
  if (error.code === 'INTERNAL_SERVER_ERROR') return 'internal error'
  const known = isGnapError(cause) || isConsoleError(cause)
  return error.code === 'BAD_REQUEST' && !known && hasIssues(cause) ? describeIssues(cause) : error.message
}

/** A procedure's REST form under `/api/v1` (docs/protocol.md §2.18): the REST routing and the OpenAPI document read it. */
export interface RestMeta {
  method: 'GET' | 'POST'
  /** OpenAPI style: `/grants/{id}`. Path parameters are fields of the procedure's input; its other fields come as a JSON body. */
  path: string
  summary: string
}

/**
 * What a procedure declares about itself, read by the middlewares below and by the REST form (rest.ts): the lowest
 * role that may call it (set by the role procedures), whether only a person may (never an API key), and its REST
 * form. A people-only procedure has no REST form (rest.ts refuses to serve one that declares both).
 */
export interface ProcedureMeta {
  role?: AdminRole
  peopleOnly?: boolean
  rest?: RestMeta
}

const t = initTRPC
  .context<Context>()
  .meta<ProcedureMeta>()
  .create({
    transformer: superjson,
    // Never a stack in a response, whatever NODE_ENV says.
    isDev: false,
    errorFormatter({ shape, error }) {
      const gnap = isGnapError(error.cause) ? error.cause : null
      const message = publicMessage(error)
      const { stack: _stack, ...data } = shape.data
      return {
        ...shape,
        message,
        data: {
          ...data,
          gnapCode: (gnap?.code ?? null) as GnapErrorCode | null,
          retryAfterSeconds: gnap?.retryAfterSeconds ?? null,
        },
      }
    },
  })

/**
 * Turns a ConsoleError or GnapError thrown by a use case into the TRPCError of its code or status (so callers in the
 * same process see the right code too, not only HTTP clients), message kept, and logs what is neither.
 */
const mapErrors = t.middleware(async ({ ctx, path, next }) => {
  const result = await next()
  if (result.ok) return result
  let cause = result.error.cause
  // The database is unreachable for now (docs/protocol.md §9): 503 with retryAfterSeconds, not an internal error.
  if (!isGnapError(cause) && !isConsoleError(cause) && isDatabaseUnavailable(cause)) {
    ctx.deps.log.warn({ path }, 'admin procedure: database unavailable')
    cause = serviceUnavailable()
  }
  if (isConsoleError(cause)) {
    ctx.deps.log.info({ path, code: cause.code }, 'admin procedure refused')
    return { ...result, error: new TRPCError({ code: trpcCodeOf(cause.code), message: cause.message, cause }) }
  }
  if (isGnapError(cause)) {
    ctx.deps.log.info({ path, code: cause.code, status: cause.status }, 'admin procedure refused')
    return { ...result, error: new TRPCError({ code: trpcCodeForStatus(cause.status), message: cause.message, cause }) }
  }
  if (result.error.code === 'INTERNAL_SERVER_ERROR') ctx.deps.log.error({ path, err: cause ?? result.error }, 'admin procedure failed')
  return result
})

export const router = t.router
export const createCallerFactory = t.createCallerFactory

/** Refusals of the request's credentials, before any procedure runs (docs/protocol.md §2.18). */
const credentialErrors = {
  both: () => new TRPCError({ code: 'BAD_REQUEST', message: 'send either the session cookie or an API key, not both' }),
  key: () => new TRPCError({ code: 'UNAUTHORIZED', message: 'unknown, expired or revoked API key' }),
} as const

/**
 * The one rule that refuses API keys (docs/protocol.md §2.18): a procedure whose meta says `peopleOnly` (signing in,
 * one's own session and account, managing API keys and administrators) answers a key FORBIDDEN, whatever its role.
 */
const refuseKeysOnPeopleOnly = t.middleware(({ ctx, meta, next }) => {
  if (meta?.peopleOnly && ctx.apiKey)
    throw new TRPCError({ code: 'FORBIDDEN', message: 'API keys cannot call this: it is for people signed in to the console' })
  return next()
})

/**
 * Every procedure starts here. A request whose credentials are refused (a bad key, a cookie and a key together) is
 * refused already, then an API key on a people-only procedure.
 */
const baseProcedure = t.procedure
  .use(mapErrors)
  .use(({ ctx, next }) => {
    if (ctx.credentialProblem) throw credentialErrors[ctx.credentialProblem]()
    return next()
  })
  .use(refuseKeysOnPeopleOnly)

/** Sign-in: a person without a session yet, never an API key. */
export const publicProcedure = baseProcedure.meta({ peopleOnly: true })

const csrfRefusal = () => new TRPCError({ code: 'FORBIDDEN', message: 'missing or stale CSRF token: reload the page and try again' })

const requireCsrf = t.middleware(({ ctx, type, next }) => {
  if (type === 'mutation' && !ctx.csrfOk) throw csrfRefusal()
  return next()
})

const enrolFirst = () => new TRPCError({ code: 'FORBIDDEN', message: 'turn on two-step sign-in first: this server requires it' })

/**
 * A person signed in to the console (live admin session), whatever their role, even one who must still enrol
 * two-step sign-in (docs/protocol.md §2.17): UNAUTHORIZED without a session, FORBIDDEN for an API key. Only for the
 * session itself, signing out and enrolment.
 */
export const enrolmentProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.admin || !ctx.session || !ctx.actor) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'sign in as an administrator' })
  return next({ ctx: { ...ctx, admin: ctx.admin, session: ctx.session, actor: ctx.actor } })
})

/** An enrolment-allowed procedure with the CSRF check of mutations. */
export const enrolmentMutationProcedure = enrolmentProcedure.use(requireCsrf)

/**
 * A person signed in to the console, whatever their role: as enrolmentProcedure, and FORBIDDEN while
 * ADMIN_REQUIRE_TOTP asks them to enrol two-step sign-in first (docs/protocol.md §2.17). For their own account.
 */
export const signedInProcedure = enrolmentProcedure.use(({ ctx, next }) => {
  if (ctx.mustEnrol) throw enrolFirst()
  return next()
})

/** A signed-in person's procedure whose mutations also need the session's CSRF token: FORBIDDEN otherwise. */
export const mutationProcedure = signedInProcedure.use(requireCsrf)

/**
 * A person signed in to the console or a back end with an API key (docs/protocol.md §2.18): UNAUTHORIZED without
 * either. A person's mutations need the session's CSRF token; a key's calls carry no cookie, so no CSRF, but each
 * counts against the key's per-minute limit (TOO_MANY_REQUESTS with Retry-After).
 */
const callerProcedure = baseProcedure.use(async ({ ctx, type, next }) => {
  if (!ctx.actor) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'sign in as an administrator' })
  if (ctx.apiKey) await admitApiKeyCall(ctx.deps, ctx.apiKey)
  else if (ctx.mustEnrol) throw enrolFirst()
  else if (type === 'mutation' && !ctx.csrfOk) throw csrfRefusal()
  return next({ ctx: { ...ctx, actor: ctx.actor } })
})

/**
 * The role check: the caller's role must reach the procedure's `meta.role` (docs/protocol.md §2.14), FORBIDDEN
 * otherwise. The role sits on the procedure's meta, so the OpenAPI document's `x-role` (rest.ts) reads the same value.
 */
const roleChecked = callerProcedure.use(({ ctx, meta, next }) => {
  const role = meta?.role
  if (!role) throw new Error('a role procedure without meta.role')
  if (!roleAllows(ctx.actor.role, role)) {
    throw new TRPCError({ code: 'FORBIDDEN', message: `this needs the ${role} role; yours is ${ctx.actor.role}` })
  }
  return next()
})

/**
 * A procedure for `role` and the roles above it (docs/protocol.md §2.14), for people and API keys alike:
 * UNAUTHORIZED without a caller, FORBIDDEN for a lower role, and a person's mutations need the CSRF token of
 * their session. Every console procedure but sign-in and the caller's own session is built from one of these.
 */
const roleProcedure = (role: AdminRole) => roleChecked.meta({ role })

/** Reads: every role. */
export const viewerProcedure = roleProcedure('viewer')
/** Revoking grants and tokens, blocking clients: `operator` and `admin`. */
export const operatorProcedure = roleProcedure('operator')
/** Owners, administrators and API keys: `admin` only. */
export const adminOnlyProcedure = roleProcedure('admin')
/**
 * `admin` people only, never an API key: managing API keys and administrators (a key that could mint keys would
 * outlive its own revocation).
 */
export const adminPersonProcedure = adminOnlyProcedure.meta({ peopleOnly: true })

/** A REST form as an operation writes it (docs/protocol.md §2.18): `['POST', '/clients/block', 'Blocks a client…']`. */
export type RestForm = readonly [method: RestMeta['method'], path: string, summary: string]

type Awaitable<T> = T | Promise<T>

/**
 * The operations of one role, each declared once (docs/protocol.md §2.18): its REST form (null for none), its input and
 * output schemas and its use case, in one call. The router's `.input()` is the one validation: the use case takes the
 * parsed input with the caller as `actor` (whose `tenantId` bounds what a key bound to one tenant reads and changes). The REST routing and the OpenAPI document (rest.ts)
 * read the role and the REST form from the procedure's meta.
 */
function operationsOf(procedure: typeof viewerProcedure) {
  // The answers are cast to never below because tRPC cannot relate `z.input<O>` to its own view of a schema not known
  // yet; the resolver's type checks them against `z.input<O>`, and the procedure's output type is the schema's.
  const declared = (rest: RestForm | null) => (rest ? procedure.meta({ rest: { method: rest[0], path: rest[1], summary: rest[2] } }) : procedure)
  return {
    query: <I extends z.ZodType, O extends z.ZodType>(
      rest: RestForm | null,
      input: I,
      output: O,
      resolve: (deps: Deps, input: z.output<I> & { actor: ConsoleActor }) => Awaitable<z.input<O>>,
    ) =>
      declared(rest)
        .input(input)
        .output(output)
        .query(
          async ({ ctx, input }) =>
            (await resolve(ctx.deps, { ...(input as object | undefined), actor: ctx.actor } as z.output<I> & { actor: ConsoleActor })) as never,
        ),
    mutation: <I extends z.ZodType<object>, O extends z.ZodType>(
      rest: RestForm | null,
      input: I,
      output: O,
      resolve: (deps: Deps, input: z.output<I> & { actor: ConsoleActor }) => Awaitable<z.input<O>>,
    ) =>
      declared(rest)
        .input(input)
        .output(output)
        .mutation(async ({ ctx, input }) => (await resolve(ctx.deps, { ...(input as z.output<I>), actor: ctx.actor })) as never),
  }
}

/** A use case that answers an array, as a procedure answers it: `{ items }`. */
export const asItems =
  <A extends unknown[], T>(list: (...args: A) => Promise<T[]>) =>
  async (...args: A) => ({ items: await list(...args) })

/** Reads, for every role. */
export const viewer = operationsOf(viewerProcedure)
/** Revoking grants and tokens, blocking clients: `operator` and `admin`. */
export const operator = operationsOf(operatorProcedure)
/** Owners and webhooks: `admin` people and admin API keys. */
export const admin = operationsOf(adminOnlyProcedure)
/** Administrators and API keys: `admin` people only, so no REST form. */
export const adminPerson = operationsOf(adminPersonProcedure)
