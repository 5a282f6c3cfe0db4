// Runs at every `pnpm start`. First the first administrator of the console, on an empty Admin table: from
// ADMIN_EMAIL / ADMIN_PASSWORD, else the documented demo values (printed here), which a production start refuses.
// Then demo data into an empty database (no grant and no owner yet): the demo resource owner who signs in to the
// consent screen, and the demo client's key pair for `pnpm demo`, whose wallet address the demo serves on
// loopback; nothing once the database holds data.
import fs from 'node:fs'
import path from 'node:path'
import { generateKeyPairSync } from 'node:crypto'
import { createOwner, DEMO_ADMIN, DEMO_OWNER, ensureFirstAdmin, FirstAdminError, isUniqueViolation, openStore, type Store } from '@gnap/domain'

const root = path.resolve(import.meta.dirname, '..')
const keyFile = path.join(root, 'data', 'demo-client.json')

async function main() {
  const store = await openStore(process.env.DATABASE_URL ?? `file:${path.join(root, 'data', 'gnap.db')}`)
  try {
    await seedFirstAdmin(store)
    const empty = (await store.reads.grant.count()) === 0 && (await store.reads.owner.count()) === 0
    if (!empty) return
    if (process.env.NODE_ENV === 'production') return
    try {
      await createOwner(store.sql, { ...DEMO_OWNER, walletAddresses: [...DEMO_OWNER.walletAddresses] })
    } catch (e) {
      // Another instance starting on the same empty database at the same moment created it first.
      if (isUniqueViolation(e)) return
      throw e
    }
    console.log('[seed] demo resource owner for the consent screen:')
    console.log(`[seed]   email ${DEMO_OWNER.email}, password ${DEMO_OWNER.password}, wallet address ${DEMO_OWNER.walletAddresses[0]}`)
    if (!fs.existsSync(keyFile)) writeDemoClientKey()
  } finally {
    await store.close()
  }
}

async function seedFirstAdmin(store: Store) {
  const result = await ensureFirstAdmin(store.sql, {
    email: process.env.ADMIN_EMAIL,
    password: process.env.ADMIN_PASSWORD,
    isProduction: process.env.NODE_ENV === 'production',
  })
  if (!result.created) return
  if (result.isDemo && result.email === DEMO_ADMIN.email) {
    console.log('[seed] demo administrator for the admin console (/admin): set ADMIN_EMAIL and ADMIN_PASSWORD to choose your own')
    console.log(`[seed]   email ${DEMO_ADMIN.email}, password ${DEMO_ADMIN.password}`)
  } else {
    // The password came from the environment: never printed.
    console.log(`[seed] first administrator ${result.email} created from ADMIN_EMAIL and ADMIN_PASSWORD`)
  }
}

function writeDemoClientKey() {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'demo-key-1', alg: 'EdDSA', use: 'sig' }
  fs.mkdirSync(path.dirname(keyFile), { recursive: true })
  fs.writeFileSync(
    keyFile,
    JSON.stringify(
      {
        walletAddressName: 'demo-client',
        publicName: 'Demo Wallet App',
        keyId: jwk.kid,
        jwk,
        privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }),
      },
      null,
      2,
    ) + '\n',
    { mode: 0o600 },
  )
  console.log('[seed] demo client key: data/demo-client.json (used by `pnpm demo`)')
}

main().catch((e) => {
  if (e instanceof FirstAdminError) {
    console.error(`[seed] admin console: ${e.message}`)
    process.exit(1)
  }
  console.error('[seed] failed:', e instanceof Error ? e.message : e)
  process.exit(1)
})
