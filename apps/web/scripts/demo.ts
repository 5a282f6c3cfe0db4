// `pnpm demo`: the whole grant lifecycle against a running server, with the real Open Payments client, printed
// step by step. It serves the demo client's wallet address on loopback and plays the owner's browser and the
// identity provider through the identity-provider API. Token values are shown masked.
import { createHash, createPrivateKey, randomUUID } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { createAuthenticatedClient, isFinalizedGrant, isPendingGrant } from '@interledger/open-payments'
import http from 'node:http'
import { DEMO_OWNER } from '@gnap/domain/operator'
import { generateClientKey, startWalletAddressServer } from '@gnap/domain/testing'

const root = path.resolve(import.meta.dirname, '../../..')
const saved = readJson(path.join(root, 'data', 'secrets.json'))
const authServer = (process.env.AUTH_SERVER_URL ?? `http://localhost:${process.env.PORT ?? 3000}`).replace(/\/+$/, '') + '/'
// The first entry, when the setting lists several (docs/protocol.md §7).
const introspectionSecret = (process.env.INTROSPECTION_SECRET ?? saved.INTROSPECTION_SECRET)?.split(',')[0]?.trim()
/** `pnpm demo --browser`: a person approves in a real browser; the client's finish page is served on loopback. */
const browser = process.argv.includes('--browser') ? await startFinishPage() : null

function readJson(file: string): Record<string, string> {
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>) : {}
}
const mask = (v: string) => `${v.slice(0, 4)}…(${v.length} chars)`
let n = 0
const step = (text: string) => console.log(`\n${++n}. ${text}`)
const say = (text: string) => console.log(`   ${text}`)

async function main() {
  if (!introspectionSecret) {
    throw new Error('set INTROSPECTION_SECRET as the server has it (pnpm start keeps a local one in data/secrets.json)')
  }
  const demo = readJson(path.join(root, 'data', 'demo-client.json'))
  const key = demo.privateKeyPem
    ? { kid: demo.keyId ?? 'demo-key-1', privateKey: createPrivateKey(demo.privateKeyPem), jwk: demo.jwk as unknown as object }
    : await generateClientKey('demo-key-1')
  const wallets = await startWalletAddressServer({})
  try {
    const walletAddress = wallets.addClient('demo-client', { publicName: 'Demo Wallet App', keys: [key.jwk as never], authServer })
    step(`The demo client publishes its Ed25519 key at ${walletAddress}/jwks.json`)
    const client = await createAuthenticatedClient({ walletAddressUrl: walletAddress, privateKey: key.privateKey, keyId: key.kid })

    step(`Grant request for incoming payments (no interaction) to ${authServer}`)
    const incoming = await client.grant.request(
      { url: authServer },
      { access_token: { access: [{ type: 'incoming-payment', actions: ['create', 'read', 'list'] }] } },
    )
    if (!isFinalizedGrant(incoming) || !incoming.access_token) throw new Error('expected an issued grant')
    say(`token ${mask(incoming.access_token.value)}, expires in ${incoming.access_token.expires_in} s, manage ${incoming.access_token.manage}`)

    step('A resource server introspects it')
    say(JSON.stringify(await introspect(incoming.access_token.value)))

    step("Grant request for an outgoing payment: needs the owner's consent")
    const clientNonce = randomUUID()
    const pending = await client.grant.request(
      { url: authServer },
      {
        access_token: {
          access: [
            {
              type: 'outgoing-payment',
              actions: ['create', 'read'],
              identifier: DEMO_OWNER.walletAddresses[0],
              limits: { debitAmount: { value: '2500', assetCode: 'USD', assetScale: 2 }, interval: 'R12/2026-12-01T00:00:00Z/P1M' },
            },
          ],
        },
        interact: {
          start: ['redirect'],
          finish: { method: 'redirect', uri: browser?.url ?? 'https://demo-client.example/finish', nonce: clientNonce },
        },
      },
    )
    if (!isPendingGrant(pending)) throw new Error('expected a pending grant')
    say(`send the owner to ${pending.interact.redirect}`)
    say(`continue at ${pending.continue.uri} after ${pending.continue.wait} s`)

    let back: URL
    if (browser) {
      step('Open this link in a browser, sign in as the demo owner and approve or deny:')
      say(pending.interact.redirect)
      say(`(demo owner: ${DEMO_OWNER.email} / ${DEMO_OWNER.password})`)
      back = await browser.next
    } else {
      step(`The owner opens the link, signs in as ${DEMO_OWNER.email} and clicks Approve`)
      back = await approveAsOwner(pending.interact.redirect)
    }
    if (back.searchParams.get('result')) throw new Error(`the owner did not approve: result=${back.searchParams.get('result')}`)
    const interactRef = back.searchParams.get('interact_ref') ?? ''
    const expected = createHash('sha256').update([clientNonce, pending.interact.finish, interactRef, authServer].join('\n')).digest('base64')
    say(`the browser came back to the client with a hash that is ${back.searchParams.get('hash') === expected ? 'verified' : 'WRONG'}`)

    step(`Waiting ${pending.continue.wait} s, then continuing with the interact_ref`)
    await new Promise((r) => setTimeout(r, (pending.continue.wait ?? 0) * 1000))
    const issued = await client.grant.continue(
      { url: pending.continue.uri, accessToken: pending.continue.access_token.value },
      { interact_ref: interactRef },
    )
    if (!isFinalizedGrant(issued) || !issued.access_token) throw new Error('expected a token')
    say(`token ${mask(issued.access_token.value)} for ${issued.access_token.access.map((a) => a.type).join(', ')}`)

    step('Rotating the token')
    const rotated = await client.token.rotate({ url: issued.access_token.manage, accessToken: issued.access_token.value })
    say(`new token ${mask(rotated.access_token.value)}; the old one introspects ${JSON.stringify(await introspect(issued.access_token.value))}`)

    step(`The owner's own page: open ${authServer}account and sign in as ${DEMO_OWNER.email} / ${DEMO_OWNER.password}`)
    say('the demo app is listed there in plain words with Revoke access; once revoked, its token introspects inactive at once')
    console.log('\nThe whole lifecycle completed.')
  } finally {
    await wallets.close()
    browser?.close()
  }
}

/** Plays the owner's browser on the built-in consent screen: follow the link, sign in, Approve, back to the client. */
async function approveAsOwner(redirect: string): Promise<URL> {
  const start = await fetch(redirect, { redirect: 'manual' })
  const consentUrl = new URL(start.headers.get('location') ?? '', redirect)
  if (start.status !== 302 || !consentUrl.pathname.endsWith('/consent')) {
    throw new Error('the server sends owners to an external identity provider (IDENTITY_SERVER_URL): run the demo with --browser')
  }
  const cookies = [(start.headers.get('set-cookie') ?? '').split(';')[0]]
  const form = (data: Record<string, string>) => ({
    method: 'POST',
    redirect: 'manual' as const,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies.join('; ') },
    body: new URLSearchParams(data).toString(),
  })
  const signIn = await fetch(new URL('sign-in', consentUrl), form({ email: DEMO_OWNER.email, password: DEMO_OWNER.password }))
  const owner = (signIn.headers.get('set-cookie') ?? '').split(';')[0]
  if (!owner) throw new Error('signing in as the demo owner failed')
  cookies.push(owner)
  const page = await (await fetch(consentUrl, { headers: { cookie: cookies.join('; ') } })).text()
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? ''
  say(`the consent screen says: ${(/<h1>(.*?)<\/h1>/.exec(page)?.[1] ?? '').replace(/<[^>]+>/g, '')}`)
  for (const line of page.matchAll(/<li>(.*?)<\/li>/g)) say(`  - ${line[1]?.replace(/&amp;/g, '&')}`)
  const decided = await fetch(new URL('decision', consentUrl), form({ csrf, choice: 'approve' }))
  const finish = await fetch(new URL(decided.headers.get('location') ?? '', consentUrl), {
    redirect: 'manual',
    headers: { cookie: cookies.join('; ') },
  })
  return new URL(finish.headers.get('location') ?? '')
}

/** A loopback page standing for the client's finish URI: it receives the browser after consent. */
async function startFinishPage(): Promise<{ url: string; next: Promise<URL>; close: () => void }> {
  let arrived: (u: URL) => void = () => {}
  const next = new Promise<URL>((resolve) => (arrived = resolve))
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`)
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' })
    res.end(
      url.searchParams.get('result')
        ? 'The request was not approved. You can close this tab.'
        : 'Done: the demo client got your answer. You can close this tab.',
    )
    arrived(url)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}/finish`, next, close: () => server.close() }
}

async function introspect(token: string) {
  const res = await fetch(`${authServer}introspect`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${introspectionSecret}` },
    body: JSON.stringify({ access_token: token }),
  })
  return (await res.json()) as unknown
}

main().catch((e: unknown) => {
  console.error(`\ndemo failed: ${e instanceof Error ? e.message : String(e)}`)
  const d = (e as { description?: string }).description
  if (d) console.error(`   ${d}`)
  process.exit(1)
})
