// Revokes every grant whose access names a wallet address (an account that closes), from a back end with an
// `operator` API key, through the console's tRPC procedures with a typed client (docs/protocol.md §2.18).
//
//   GNAP_URL=https://auth.wallet.example GNAP_API_KEY=gnap_ak_… npx tsx examples/revoke-by-wallet-address.ts https://wallet.example/alice
//
// The key comes from the environment, not the command line, so it stays out of the process list and shell history.
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client'
import superjson from 'superjson'
import type { AppRouter } from '@gnap/api'

const walletAddress = process.argv[2]
const baseUrl = process.env.GNAP_URL
const apiKey = process.env.GNAP_API_KEY
if (!walletAddress || !baseUrl || !apiKey) {
  console.error('usage: GNAP_URL=<server> GNAP_API_KEY=<operator key> revoke-by-wallet-address.ts <wallet address>')
  process.exit(2)
}

const client = createTRPCClient<AppRouter>({
  links: [
    httpLink({
      url: new URL('api/trpc', baseUrl.replace(/\/*$/, '/')).href,
      // The server's transformer: dates cross as dates.
      transformer: superjson,
      headers: { authorization: `Bearer ${apiKey}` },
    }),
  ],
})

/** Runs `call`, waiting as told and trying again when the key is over its per-minute limit. */
async function patiently<T>(call: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await call()
    } catch (e) {
      const wait = e instanceof TRPCClientError ? (e.data as { retryAfterSeconds?: number | null } | undefined)?.retryAfterSeconds : null
      if (!(e instanceof TRPCClientError) || e.data?.code !== 'TOO_MANY_REQUESTS' || !wait) throw e
      await new Promise((r) => setTimeout(r, wait * 1000))
    }
  }
}

/** One page of the grants whose access names the wallet address. */
const grantsNaming = (address: string, cursor: string | null) =>
  patiently(() => client.grants.list.query({ filters: { walletAddress: address }, limit: 100, cursor }))

let revoked = 0
let cursor: string | null = null
for (;;) {
  const page = await grantsNaming(walletAddress, cursor)
  for (const grant of page.items) {
    // Already revoked or rejected: nothing to do.
    if (grant.state === 'finalized' && grant.finalizedReason !== 'issued') continue
    try {
      const result = await patiently(() => client.grants.revoke.mutate({ id: grant.id }))
      revoked++
      console.log(`revoked grant ${grant.id} of ${grant.client.walletAddress} (${result.revokedTokens} live token(s))`)
    } catch (e) {
      // Revoked by someone else meanwhile.
      if (e instanceof TRPCClientError && e.data?.code === 'CONFLICT') continue
      throw e
    }
  }
  if (!page.nextCursor) break
  cursor = page.nextCursor
}
console.log(`${revoked} grant(s) naming ${walletAddress} revoked`)
