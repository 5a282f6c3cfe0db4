import { answers, otherMethods } from '../../server/edge/gnap-route'
import { readiness } from '../../server/process/readiness'

export const dynamic = 'force-dynamic'

// Readiness (docs/protocol.md §2.19): 200 when this process may take traffic, else 503 with the reason. Reads no
// secret. The console's proxy leaves it out (proxy.ts) and the launcher's fair turns never queue it.
export async function GET(): Promise<Response> {
  const result = await readiness()
  return result.ready ? answers.ok({ status: 'ready' }) : answers.unavailable({ status: 'not ready', reason: result.reason })
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET')
