import { headers } from 'next/headers'
import { TRPCError } from '@trpc/server'
import { createCaller, createContext } from '@gnap/api'
import { getDeps } from '../process/deps'
import { ADMIN_COOKIE, readCookie } from '@gnap/domain/kernel'

/** The in-process tRPC caller of the console's server components, as the request's admin cookie allows. */
export async function adminCaller() {
  const deps = await getDeps()
  const sessionValue = readCookie((await headers()).get('cookie'), ADMIN_COOKIE)
  // Server components only read: no CSRF token, and no cookie jar (they never sign in or out).
  return createCaller(await createContext({ deps, sessionValue, csrfToken: null, ip: null }))
}

/** Who is signed in and the session's CSRF token for the page's client, or null without a live admin session. */
export async function currentAdminSession() {
  const caller = await adminCaller()
  try {
    return await caller.auth.session()
  } catch (e) {
    if (e instanceof TRPCError && e.code === 'UNAUTHORIZED') return null
    throw e
  }
}
