import { assertMatchesSpec, type SpecName } from '@gnap/domain/testing'

/** Which contract and path template answer for a URL of our server. */
function specFor(pathname: string): { spec: SpecName; path: string } | null {
  if (pathname === '/') return { spec: 'auth-server', path: '/' }
  // A tenant's grant endpoint (docs/protocol.md §2.21) is the contract's POST /.
  if (/^\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(pathname)) return { spec: 'auth-server', path: '/' }
  if (/^\/continue\/[^/]+$/.test(pathname)) return { spec: 'auth-server', path: '/continue/{id}' }
  if (/^\/token\/[^/]+$/.test(pathname)) return { spec: 'auth-server', path: '/token/{id}' }
  if (pathname === '/introspect') return { spec: 'token-introspection', path: '/' }
  if (/^\/grant\/[^/]+\/[^/]+$/.test(pathname)) return { spec: 'id-provider', path: '/grant/{id}/{nonce}' }
  if (/^\/grant\/[^/]+\/[^/]+\/[^/]+$/.test(pathname)) return { spec: 'id-provider', path: '/grant/{id}/{nonce}/{choice}' }
  if (/^\/interact\/[^/]+\/[^/]+\/finish$/.test(pathname)) return { spec: 'id-provider', path: '/interact/{id}/{nonce}/finish' }
  if (/^\/interact\/[^/]+\/[^/]+$/.test(pathname)) return { spec: 'id-provider', path: '/interact/{id}/{nonce}' }
  return null
}

/** Parses a response body (JSON, or null when empty) and asserts it meets the contract for its status. */
export async function checkResponse(method: string, url: string, res: Response): Promise<unknown> {
  const text = await res.clone().text()
  const type = res.headers.get('content-type') ?? ''
  const target = specFor(new URL(url).pathname)
  if (!target) throw new Error(`no contract for ${method} ${url}`)
  if (type.includes('text/html')) return text
  if (text.length > 0 && !type.includes('application/json'))
    throw new Error(`${method} ${url}: ${res.status} with a non-JSON body: ${text.slice(0, 200)}`)
  const body = text.length > 0 ? (JSON.parse(text) as unknown) : null
  assertMatchesSpec(target.spec, target.path, method, res.status, body)
  return body
}

export interface Exchange {
  method: string
  url: string
  status: number
}

/**
 * Wraps the global fetch so every answer of our server (including the ones the SDK receives) is checked
 * against the contract. Returns the list of exchanges seen and a restore function.
 */
export function checkEveryResponse(serverUrl: string): { exchanges: Exchange[]; failures: string[]; restore: () => void } {
  const original = globalThis.fetch
  const exchanges: Exchange[] = []
  const failures: string[] = []
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const res = await original(input, init)
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase()
    if (url.startsWith(serverUrl)) {
      exchanges.push({ method, url, status: res.status })
      await checkResponse(method, url, res).catch((e: unknown) => failures.push(e instanceof Error ? e.message : String(e)))
    }
    return res
  }
  return { exchanges, failures, restore: () => (globalThis.fetch = original) }
}
