// Runs at every `pnpm start`. In production, first a refusal of any demo state (the demo accounts, whose passwords
// are published, and the demo client's key file): the start stops and says how to remove it (`pnpm db:remove-demo`).
// Then the first administrator of the console, on an empty Admin table: from ADMIN_EMAIL / ADMIN_PASSWORD, else the
// documented demo values (printed here), which a production start refuses. ADMIN_EMAIL / ADMIN_PASSWORD given for a
// database that already has administrators are reported: they create only the first one. Then the stored wallet
// addresses that the SQL migrations could not bring to the canonical form (dot segments, percent-encoding) get it.
// Then demo data into an empty database (no grant and no owner yet): the demo resource owner who signs in to the
// consent screen, and the demo client's key pair for `pnpm demo`, whose wallet address the demo serves on
// loopback; nothing once the database holds data.
import fs from 'node:fs'
import path from 'node:path'
import { generateKeyPairSync } from 'node:crypto'
import { isUniqueViolation, openStore, type Store } from '@gnap/domain/kernel'
import {
  canonicaliseStoredWalletAddresses,
  createOwner,
  DEMO_ADMIN,
  DEMO_OWNER,
  ensureFirstAdmin,
  findDemoState,
  FirstAdminError,
} from '@gnap/domain/operator'
import { FirstAdminEnvSchema } from '@gnap/domain/config'

const root = path.resolve(import.meta.dirname, '..')
const keyFile = path.join(root, 'data', 'demo-client.json')
const isProduction = process.env.NODE_ENV === 'production'

async function main() {
  const store = await openStore(process.env.DATABASE_URL ?? `file:${path.join(root, 'data', 'gnap.db')}`)
  try {
    if (isProduction && !(await refuseDemoState(store))) {
      process.exitCode = 1
      return
    }
    await seedFirstAdmin(store)
    await canonicaliseStored(store)
    const empty = (await store.reads.grant.count()) === 0 && (await store.reads.owner.count()) === 0
    if (!empty) return
    if (isProduction) return
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

/** Stored wallet addresses the SQL migration could not make canonical (docs/protocol.md §6): said, never silent. */
async function canonicaliseStored(store: Store): Promise<void> {
  const { rewritten, collisions } = await canonicaliseStoredWalletAddresses(store.sql)
  if (rewritten > 0) console.log(`[seed] ${rewritten} stored wallet address spellings rewritten to their canonical form`)
  for (const url of collisions) {
    console.error(`[seed] owner wallet address ${url} left as it was: another owner's address has the same canonical form.`)
    console.error('[seed]   Remove the one that should go in the console (Owners), then start again.')
  }
}

/** Production: false (after saying what and how to remove it) when the database or data/ holds demo state. */
async function refuseDemoState(store: Store): Promise<boolean> {
  const found = (await findDemoState(store.sql)).map((item) => item.description)
  const keyLeft = fs.existsSync(keyFile)
  if (found.length === 0 && !keyLeft) return true
  const key = path.relative(root, keyFile)
  console.error('[seed] NODE_ENV=production refuses to start: the demo state below has published credentials.')
  for (const item of found) console.error(`[seed]   - ${item}`)
  if (keyLeft) {
    console.error(`[seed]   - ${key}: the private key of the demo client (the app \`pnpm demo\` signs as), written by an earlier start`)
    console.error('[seed]     outside production. A production server never uses it, whatever the database holds.')
  }
  if (found.length === 0) {
    // Only the key: the database itself is clean (a fresh one, say).
    console.error(`[seed] Delete ${key} (or run \`pnpm db:remove-demo\`, which deletes it), then start again.`)
    return false
  }
  console.error('[seed] Remove it with `pnpm db:remove-demo`, run with the same DATABASE_URL, then start again. If that leaves no')
  console.error('[seed] administrator, set ADMIN_EMAIL and ADMIN_PASSWORD for the new first one.')
  return false
}

async function seedFirstAdmin(store: Store) {
  const settings = FirstAdminEnvSchema.parse(process.env)
  const result = await ensureFirstAdmin(store.sql, {
    email: settings.ADMIN_EMAIL,
    password: settings.ADMIN_PASSWORD,
    isProduction,
  })
  if (!result.created) {
    if (result.ignoredSettings) {
      console.warn(
        '[seed] warning: ADMIN_EMAIL and ADMIN_PASSWORD are ignored: this database already has administrators, and they only create the first one',
      )
    }
    return
  }
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
