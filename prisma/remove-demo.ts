// `pnpm db:remove-demo`: removes the demo state a non-production start seeds, which a production start refuses: the
// demo administrator (and any administrator whose password is the demo password), the demo resource owner, the demo
// wallet address, their sessions, and the demo client's key file data/demo-client.json. Grants and the audit log stay.
// Uses DATABASE_URL, like `pnpm start` (default: data/gnap.db).
import fs from 'node:fs'
import path from 'node:path'
import { openStore } from '@gnap/domain/kernel'
import { removeDemoState } from '@gnap/domain/operator'

const root = path.resolve(import.meta.dirname, '..')
const keyFile = path.join(root, 'data', 'demo-client.json')

async function main() {
  const store = await openStore(process.env.DATABASE_URL ?? `file:${path.join(root, 'data', 'gnap.db')}`)
  try {
    const removed = (await removeDemoState(store.sql)).map((item) => item.description)
    if (fs.existsSync(keyFile)) {
      fs.rmSync(keyFile)
      removed.push(`the demo client's private key, ${path.relative(root, keyFile)}`)
    }
    if (removed.length === 0) console.log('[remove-demo] no demo state found')
    for (const item of removed) console.log(`[remove-demo] removed ${item}`)
    if (removed.length > 0 && (await store.reads.admin.count()) === 0) {
      console.log('[remove-demo] no administrator is left: set ADMIN_EMAIL and ADMIN_PASSWORD for the next start')
    }
  } finally {
    await store.close()
  }
}

main().catch((e) => {
  console.error('[remove-demo] failed:', e instanceof Error ? e.message : e)
  process.exit(1)
})
