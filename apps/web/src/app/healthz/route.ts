import { answers, otherMethods } from '../../server/edge/gnap-route'

export const dynamic = 'force-dynamic'

// Liveness (docs/protocol.md §2.19): 200 while this process serves. Reads nothing: no database, no secret. The
// console's proxy leaves it out (proxy.ts) and the launcher's fair turns never queue it.
export const GET = (): Response => answers.ok({ status: 'ok' })

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET')
