// Seeds the demo client into an empty database: a key pair for `pnpm demo`, whose wallet address the demo
// serves on loopback. Runs at every `pnpm start`; does nothing once the database holds a grant or the key exists.
import fs from 'node:fs'
import path from 'node:path'
import { generateKeyPairSync } from 'node:crypto'
import { openDb } from '../packages/domain/src/db/client'

const root = path.resolve(import.meta.dirname, '..')
const keyFile = path.join(root, 'data', 'demo-client.json')

async function main() {
  const db = await openDb(process.env.DATABASE_URL ?? `file:${path.join(root, 'data', 'gnap.db')}`)
  const grants = await db.grant.count()
  await db.$disconnect()
  if (grants > 0 || fs.existsSync(keyFile)) return
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'demo-key-1', alg: 'EdDSA', use: 'sig' }
  fs.mkdirSync(path.dirname(keyFile), { recursive: true })
  fs.writeFileSync(
    keyFile,
    JSON.stringify({ walletAddressName: 'demo-client', publicName: 'Demo Wallet App', keyId: jwk.kid, jwk, privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }) }, null, 2) + '\n',
    { mode: 0o600 },
  )
  console.log('[seed] demo client created: data/demo-client.json (used by `pnpm demo`)')
}

main().catch((e) => {
  console.error('[seed] failed:', e instanceof Error ? e.message : e)
  process.exit(1)
})
