// Raw HTTP against `next start`: plain fetch with headers signed as the Open Payments SDK signs them, so a test
// controls every header and byte. Used by the http-errors tests, which walk the error rows of docs/protocol.md §2.
import { createRequire } from 'node:module'
import { randomUUID } from 'node:crypto'
import { expect } from 'vitest'
import { signedHeaders } from '@gnap/domain/testing'
import { checkResponse } from './spec'
import { consent, finishParams, outgoingAccess, type ClientKey, type World } from './world'

// better-sqlite3 ships no types here; the tests need two calls of it, typed below.
interface ReadonlyDb {
  prepare(sql: string): { get(...params: unknown[]): unknown }
  close(): void
}
const require = createRequire(import.meta.url)
const Database = require('better-sqlite3') as new (file: string, options: { readonly: boolean }) => ReadonlyDb

function withDb<T>(dbFile: string, read: (db: ReadonlyDb) => T): T {
  const db = new Database(dbFile, { readonly: true })
  try {
    return read(db)
  } finally {
    db.close()
  }
}

/** Row counts of every table a request could write, read from the server's SQLite file. */
export function rowCounts(dbFile: string): Record<'Grant' | 'AccessItem' | 'AccessToken' | 'Interaction', number> {
  return withDb(dbFile, (db) => {
    const count = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM "${table}"`).get() as { n: number }).n
    return { Grant: count('Grant'), AccessItem: count('AccessItem'), AccessToken: count('AccessToken'), Interaction: count('Interaction') }
  })
}

/** The interact_ref of a grant's interaction, straight from the database (the client only learns it at finish). */
export function interactRefOf(dbFile: string, continueUri: string): string {
  const continueId = new URL(continueUri).pathname.split('/').pop() ?? ''
  return withDb(dbFile, (db) => {
    const row = db
      .prepare('SELECT i."interactRef" AS ref FROM "Interaction" i JOIN "Grant" g ON g."id" = i."grantId" WHERE g."continueId" = ?')
      .get(continueId) as { ref: string } | undefined
    if (!row) throw new Error(`no interaction for ${continueUri}`)
    return row.ref
  })
}

/** Every error description the server gave in this test file, checked at the end for leaked secrets. */
export const seenDescriptions: string[] = []

export interface SignedInput {
  method: string
  url: string
  /** Sent as `Authorization: GNAP <token>` and covered by the signature. */
  token?: string
  /** A raw Authorization value instead (another scheme, say), also covered by the signature. */
  authorization?: string
  /** Serialised as compact JSON, the bytes the SDK sends. */
  body?: unknown
}

/** A request signed as the SDK would sign it, by `key`. */
export async function signedRequest(key: ClientKey, input: SignedInput): Promise<RequestInit> {
  const body = input.body === undefined ? undefined : JSON.stringify(input.body)
  const authorization = input.authorization ?? (input.token !== undefined ? `GNAP ${input.token}` : undefined)
  const headers = await signedHeaders(key, {
    method: input.method,
    url: input.url,
    ...(authorization !== undefined ? { headers: { authorization } } : {}),
    ...(body !== undefined ? { body } : {}),
  })
  return { method: input.method, headers, ...(body !== undefined ? { body } : {}) }
}

export async function signedFetch(key: ClientKey, input: SignedInput): Promise<Response> {
  return fetch(input.url, await signedRequest(key, input))
}

export interface GnapErrorJson {
  error: { code: string; description: string }
}

/**
 * Asserts a GNAP error answer: status, `Content-Type: application/json`, the code, exactly
 * `{error:{code, description}}`, and that the body meets the contract (which allows the documented deviations).
 * Returns the description.
 */
export async function expectGnapError(method: string, url: string, res: Response, status: number, code: string): Promise<string> {
  const text = await res.clone().text()
  expect(res.status, `${method} ${url} answered ${res.status} ${text}`).toBe(status)
  expect(res.headers.get('content-type') ?? '').toMatch(/^application\/json\s*(;|$)/)
  const body = (await checkResponse(method, url, res)) as GnapErrorJson
  expect(Object.keys(body)).toEqual(['error'])
  expect(Object.keys(body.error).sort()).toEqual(['code', 'description'])
  expect(body.error.code).toBe(code)
  expect(typeof body.error.description).toBe('string')
  expect(body.error.description.length).toBeGreaterThan(0)
  seenDescriptions.push(body.error.description)
  return body.error.description
}

/** Asserts a 200 JSON answer that meets the contract and returns its body. */
export async function expectOk<T>(method: string, url: string, res: Response, status = 200): Promise<T> {
  const text = await res.clone().text()
  expect(res.status, `${method} ${url} answered ${res.status} ${text}`).toBe(status)
  return (await checkResponse(method, url, res)) as T
}

export interface IssuedToken {
  value: string
  manage: string
  expires_in: number
  access: unknown[]
}

export interface IssuedGrant {
  token: IssuedToken
  continueUri: string
  continueToken: string
}

export interface PendingGrant {
  continueUri: string
  continueToken: string
  redirect: string
  /** interact.finish: the AS nonce. */
  asNonce: string
  interactionId: string
  /** The client's finish nonce, when a finish method was sent. */
  clientNonce: string | null
}

interface GrantAnswer {
  access_token?: IssuedToken
  continue: { access_token: { value: string }; uri: string; wait?: number }
  interact?: { redirect: string; finish: string }
}

export const incomingAccess = [{ type: 'incoming-payment', actions: ['create', 'read', 'list'] }]

/** A non-interactive grant, issued at once with its token. */
export async function issuedGrant(w: World, key: ClientKey = w.key, client: string = w.walletAddress): Promise<IssuedGrant> {
  const res = await signedFetch(key, { method: 'POST', url: w.server.url, body: { access_token: { access: incomingAccess }, client } })
  const body = await expectOk<GrantAnswer>('POST', w.server.url, res)
  if (!body.access_token) throw new Error('expected an issued grant')
  return { token: body.access_token, continueUri: body.continue.uri, continueToken: body.continue.access_token.value }
}

/** An interactive outgoing-payment grant, pending its interaction; with a finish redirect unless told otherwise. */
export async function pendingGrant(w: World, opts: { finish?: boolean; key?: ClientKey; client?: string } = {}): Promise<PendingGrant> {
  const finish = opts.finish === false ? undefined : finishParams()
  const res = await signedFetch(opts.key ?? w.key, {
    method: 'POST',
    url: w.server.url,
    body: {
      access_token: { access: [outgoingAccess(`https://wallet.example/${randomUUID()}`)] },
      client: opts.client ?? w.walletAddress,
      interact: { start: ['redirect'], ...(finish ? { finish } : {}) },
    },
  })
  const body = await expectOk<GrantAnswer>('POST', w.server.url, res)
  if (!body.interact) throw new Error('expected a pending grant')
  const [, , interactionId] = new URL(body.interact.redirect).pathname.split('/')
  return {
    continueUri: body.continue.uri,
    continueToken: body.continue.access_token.value,
    redirect: body.interact.redirect,
    asNonce: body.interact.finish,
    interactionId: interactionId ?? '',
    clientNonce: finish?.nonce ?? null,
  }
}

/** A pending grant the owner approved and finished: returns it with the interact_ref from the finish redirect. */
export async function approvedGrant(w: World): Promise<PendingGrant & { interactRef: string; finishUrl: string; cookie: string }> {
  const grant = await pendingGrant(w)
  const { finish, finishUrl, cookie } = await consent(w.server, grant.redirect, 'accept')
  expect(finish.status).toBe(302)
  const interactRef = new URL(finish.headers.get('location') ?? '').searchParams.get('interact_ref')
  if (!interactRef) throw new Error('no interact_ref in the finish redirect')
  return { ...grant, interactRef, finishUrl, cookie }
}

/** Continue (POST) or cancel (DELETE) a grant, signed by `key` with the grant's continuation token unless overridden. */
export async function continueRequest(
  w: World,
  grant: { continueUri: string; continueToken: string },
  opts: { method?: 'POST' | 'DELETE'; body?: unknown; token?: string | null; key?: ClientKey } = {},
): Promise<Response> {
  const token = opts.token === null ? undefined : (opts.token ?? grant.continueToken)
  return signedFetch(opts.key ?? w.key, {
    method: opts.method ?? 'POST',
    url: grant.continueUri,
    ...(token !== undefined ? { token } : {}),
    ...(opts.body !== undefined ? { body: opts.body } : {}),
  })
}

/** Asserts that no description and no log line of the server contains any of `secrets`. */
export function expectNoLeaks(w: World, secrets: string[]): void {
  expect(secrets.length).toBeGreaterThan(0)
  expect(seenDescriptions.length).toBeGreaterThan(0)
  const logs = w.server.logs()
  for (const secret of secrets) {
    expect(secret.length).toBeGreaterThan(8)
    for (const d of seenDescriptions) expect(d).not.toContain(secret)
    expect(logs.includes(secret), 'a secret appears in the server log').toBe(false)
  }
}
