// `pnpm demo`: the whole grant lifecycle against a running server, with the real Open Payments client, printed
// step by step. It serves the demo client's wallet address on loopback and plays the owner's browser and the
// identity provider through the identity-provider API. Token values are shown masked.
import { createHash, createPrivateKey, randomUUID } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { createAuthenticatedClient, isFinalizedGrant, isPendingGrant } from '@interledger/open-payments'
import { generateClientKey, startWalletAddressServer } from '@gnap/domain/testing'

const root = path.resolve(import.meta.dirname, '../../..')
const saved = readJson(path.join(root, 'data', 'secrets.json'))
const authServer = (process.env.AUTH_SERVER_URL ?? `http://localhost:${process.env.PORT ?? 3000}`).replace(/\/+$/, '') + '/'
const idpSecret = process.env.IDENTITY_SERVER_SECRET ?? saved.IDENTITY_SERVER_SECRET
const introspectionSecret = process.env.INTROSPECTION_SECRET ?? saved.INTROSPECTION_SECRET

function readJson(file: string): Record<string, string> {
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>) : {}
}
const mask = (v: string) => `${v.slice(0, 4)}…(${v.length} chars)`
let n = 0
const step = (text: string) => console.log(`\n${++n}. ${text}`)
const say = (text: string) => console.log(`   ${text}`)

async function main() {
  if (!idpSecret || !introspectionSecret) {
    throw new Error('set IDENTITY_SERVER_SECRET and INTROSPECTION_SECRET as the server has them (pnpm start keeps local ones in data/secrets.json)')
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
    const incoming = await client.grant.request({ url: authServer }, { access_token: { access: [{ type: 'incoming-payment', actions: ['create', 'read', 'list'] }] } })
    if (!isFinalizedGrant(incoming) || !incoming.access_token) throw new Error('expected an issued grant')
    say(`token ${mask(incoming.access_token.value)}, expires in ${incoming.access_token.expires_in} s, manage ${incoming.access_token.manage}`)

    step('A resource server introspects it')
    say(JSON.stringify(await introspect(incoming.access_token.value)))

    step('Grant request for an outgoing payment: needs the owner\'s consent')
    const clientNonce = randomUUID()
    const pending = await client.grant.request(
      { url: authServer },
      {
        access_token: {
          access: [{ type: 'outgoing-payment', actions: ['create', 'read'], identifier: walletAddress, limits: { debitAmount: { value: '2500', assetCode: 'USD', assetScale: 2 }, interval: 'R12/2026-12-01T00:00:00Z/P1M' } }],
        },
        interact: { start: ['redirect'], finish: { method: 'redirect', uri: 'https://demo-client.example/finish', nonce: clientNonce } },
      },
    )
    if (!isPendingGrant(pending)) throw new Error('expected a pending grant')
    say(`send the owner to ${pending.interact.redirect}`)
    say(`continue at ${pending.continue.uri} after ${pending.continue.wait} s`)

    step('The owner opens the link; the identity provider records "accept"; the browser comes back to finish')
    const start = await fetch(pending.interact.redirect, { redirect: 'manual' })
    const idp = new URL(start.headers.get('location') ?? '')
    const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
    const interactId = idp.searchParams.get('interactId')
    const nonce = idp.searchParams.get('nonce')
    const choice = await fetch(`${authServer}grant/${interactId}/${nonce}/accept`, { method: 'POST', headers: { 'x-idp-secret': idpSecret } })
    say(`identity provider's choice answered ${choice.status}`)
    const finish = await fetch(`${authServer}interact/${interactId}/${nonce}/finish`, { redirect: 'manual', headers: { cookie } })
    const back = new URL(finish.headers.get('location') ?? '')
    const interactRef = back.searchParams.get('interact_ref') ?? ''
    const expected = createHash('sha256').update([clientNonce, pending.interact.finish, interactRef, authServer].join('\n')).digest('base64')
    say(`redirected to ${back.origin}${back.pathname}; hash ${back.searchParams.get('hash') === expected ? 'verified' : 'DOES NOT MATCH'}`)

    step(`Waiting ${pending.continue.wait} s, then continuing with the interact_ref`)
    await new Promise((r) => setTimeout(r, (pending.continue.wait ?? 0) * 1000))
    const issued = await client.grant.continue({ url: pending.continue.uri, accessToken: pending.continue.access_token.value }, { interact_ref: interactRef })
    if (!issued.access_token) throw new Error('expected a token')
    say(`token ${mask(issued.access_token.value)} for ${issued.access_token.access.map((a) => a.type).join(', ')}`)

    step('Rotating the token')
    const rotated = await client.token.rotate({ url: issued.access_token.manage, accessToken: issued.access_token.value })
    say(`new token ${mask(rotated.access_token.value)}; the old one introspects ${JSON.stringify(await introspect(issued.access_token.value))}`)

    step('Revoking the token and the grant')
    await client.token.revoke({ url: rotated.access_token.manage, accessToken: rotated.access_token.value })
    await client.grant.cancel({ url: pending.continue.uri, accessToken: pending.continue.access_token.value })
    say(`the rotated token now introspects ${JSON.stringify(await introspect(rotated.access_token.value))}`)
    console.log('\nThe whole lifecycle completed.')
  } finally {
    await wallets.close()
  }
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
