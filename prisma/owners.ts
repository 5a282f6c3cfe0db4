// `pnpm owners import <file> [--links <path>] [--tenant <id>]`: creates or updates resource owners from a CSV file (header
// `email,name,wallet_addresses`, addresses separated by spaces or `;`) or JSON Lines (`{"email","name",
// "walletAddresses":[…]}`), chosen by the extension (.csv, .jsonl, .ndjson) or else by the content. One line per row
// on standard output: created, updated, unchanged or refused and why. The invitation links of new owners go only to
// the links file (default `<file>.invitations.csv`), created readable by its owner alone (mode 0600) and appended to
// on later runs; they are never printed. Exit code 0 when every row was imported, 1 when any row was refused, 2 when
// the file could not be read. Uses DATABASE_URL like `pnpm start` (default: data/gnap.db), AUTH_SERVER_URL for the
// links and OWNER_LINK_EXPIRY_DAYS (default 7) for their lifetime (docs/protocol.md §7). `--tenant`: the tenant the new
// owners belong to (a live one; default the operator tenant of OPERATOR_TENANT_ID, or the implicit one); a row whose
// email is another tenant's owner's is refused.
import fs from 'node:fs'
import path from 'node:path'
import { grantEndpoint, openStore } from '@gnap/domain/kernel'
import { importOwners, ownerFileFormat, parseOwnerFile } from '@gnap/domain/operator'

const root = path.resolve(import.meta.dirname, '..')
const USAGE = 'usage: pnpm owners import <file> [--links <path>] [--tenant <id>]'

function fail(message: string): never {
  console.error(`[owners] ${message}`)
  process.exit(2)
}

function settings(): { authServerUrl: string; ownerLinkExpiryDays: number; operatorTenant: { id: string } | null } {
  const base = process.env.AUTH_SERVER_URL
  if (!base || !URL.canParse(base) || !/^https?:$/.test(new URL(base).protocol)) {
    fail('set AUTH_SERVER_URL to the public URL of the server: the invitation links point there')
  }
  const days = Number(process.env.OWNER_LINK_EXPIRY_DAYS ?? '7')
  if (!Number.isInteger(days) || days < 1 || days > 365) fail('OWNER_LINK_EXPIRY_DAYS must be a whole number of days from 1 to 365')
  const operator = process.env.OPERATOR_TENANT_ID?.trim().toLowerCase()
  return { authServerUrl: grantEndpoint(base), ownerLinkExpiryDays: days, operatorTenant: operator ? { id: operator } : null }
}

/** Opens the links file for appending, readable and writable by its owner only, whatever mode it had. */
function openLinksFile(file: string): number {
  const fd = fs.openSync(file, 'a', 0o600)
  fs.fchmodSync(fd, 0o600)
  if (fs.fstatSync(fd).size === 0) fs.writeSync(fd, 'email,expires_at,invitation_link\n')
  return fd
}

async function main() {
  const [command, file, ...rest] = process.argv.slice(2)
  if (command !== 'import' || !file) fail(USAGE)
  let linksFile = `${file}.invitations.csv`
  let tenantId: string | null = null
  for (let i = 0; i < rest.length; i += 2) {
    const [flag, value] = [rest[i], rest[i + 1]]
    if (!value || (flag !== '--links' && flag !== '--tenant')) fail(USAGE)
    if (flag === '--links') linksFile = value
    else tenantId = value
  }
  const config = settings()
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (e) {
    fail(`cannot read ${file}: ${(e as Error).message}`)
  }
  let rows: ReturnType<typeof parseOwnerFile>
  try {
    rows = parseOwnerFile(text, ownerFileFormat(file, text))
  } catch (e) {
    fail(`cannot read ${file}: ${(e as Error).message}`)
  }
  // Opened before the import: a links file that cannot be written stops the run before any owner is created.
  const links = openLinksFile(linksFile)
  const store = await openStore(process.env.DATABASE_URL ?? `file:${path.join(root, 'data', 'gnap.db')}`)
  try {
    const started = performance.now()
    let report: Awaited<ReturnType<typeof importOwners>>
    try {
      report = await importOwners({ sql: store.sql, clock: () => new Date(), config }, rows, { tenantId })
    } catch (e) {
      if (!(e instanceof Error) || !e.message.startsWith('unknown or deleted tenant')) throw e
      fail(e.message)
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1)
    for (const i of report.invitations) fs.writeSync(links, `${i.email},${i.expiresAt.toISOString()},${i.url}\n`)
    for (const r of report.rows) {
      console.log(`line ${r.line}: ${r.outcome} ${r.email}${r.detail ? ` (${r.detail})` : ''}`)
    }
    const count = (outcome: string) => report.rows.filter((r) => r.outcome === outcome).length
    console.log(
      `[owners] ${report.rows.length} rows in ${seconds} s: ${count('created')} created, ${count('updated')} updated, ${count('unchanged')} unchanged, ${count('refused')} refused`,
    )
    if (report.invitations.length > 0) {
      console.log(
        `[owners] ${report.invitations.length} invitation links added to ${linksFile} (mode 0600): pass each on to its owner, then delete the file`,
      )
    }
    if (count('refused') > 0) process.exitCode = 1
  } finally {
    fs.closeSync(links)
    await store.close()
  }
}

main().catch((e) => {
  console.error(e)
  process.exit(2)
})
