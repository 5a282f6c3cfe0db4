// The settings `pnpm start` and `pnpm two-instances` fill in outside production, announced and never printed: the
// secrets come from data/secrets.json (created with mode 0600 on first use, so every instance and every restart on
// this machine share them), AUTH_SERVER_URL from the caller, and loopback as a network wallet addresses may be
// fetched from. With NODE_ENV=production nothing is filled in: the required settings must be given.
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository's data/ folder (this module runs from packages/launcher/dist, or from src under tsx and vitest). */
const dataDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'data')

/** Fills `env` in place. Returns the names of required settings still missing (production only): the caller stops. */
export function applyLocalDefaults(
  env: Record<string, string | undefined>,
  { tag, authServerUrl }: { tag: string; authServerUrl: string },
): string[] {
  if (env.NODE_ENV === 'production') return ['AUTH_SERVER_URL', 'INTROSPECTION_SECRET'].filter((n) => !env[n])
  fs.mkdirSync(dataDir, { recursive: true })
  const secretsFile = path.join(dataDir, 'secrets.json')
  const saved = (fs.existsSync(secretsFile) ? JSON.parse(fs.readFileSync(secretsFile, 'utf8')) : {}) as Record<string, string | undefined>
  let changed = false
  for (const name of ['INTROSPECTION_SECRET', 'IDENTITY_SERVER_SECRET']) {
    if (env[name]) continue
    if (!saved[name]) {
      // 32 random bytes: 43 characters, above the 32 a production server requires (docs/protocol.md §7).
      saved[name] = randomBytes(32).toString('base64url')
      changed = true
    }
    env[name] = saved[name]
    console.log(`[${tag}] ${name} not set: using the local one stored in data/secrets.json`)
  }
  if (changed) fs.writeFileSync(secretsFile, JSON.stringify(saved, null, 2) + '\n', { mode: 0o600 })
  if (!env.AUTH_SERVER_URL) {
    env.AUTH_SERVER_URL = authServerUrl
    console.log(`[${tag}] AUTH_SERVER_URL not set: using ${env.AUTH_SERVER_URL}`)
  }
  // `next start` runs the server as production whatever NODE_ENV was here, and production refuses loopback wallet
  // addresses: outside production they stay reachable, as for `next dev` (docs/protocol.md §4.3).
  if (env.WALLET_ADDRESS_ALLOWED_NETWORKS === undefined) {
    env.WALLET_ADDRESS_ALLOWED_NETWORKS = '127.0.0.0/8,::1/128'
    console.log(`[${tag}] WALLET_ADDRESS_ALLOWED_NETWORKS not set: wallet addresses on loopback may be fetched (outside production)`)
  }
  // The same for webhook endpoints: a receiver on this machine (docs/webhooks.md) is reachable outside production.
  if (env.WEBHOOK_ALLOWED_NETWORKS === undefined) {
    env.WEBHOOK_ALLOWED_NETWORKS = '127.0.0.0/8,::1/128'
    console.log(`[${tag}] WEBHOOK_ALLOWED_NETWORKS not set: webhook endpoints on loopback may be called (outside production)`)
  }
  return []
}
