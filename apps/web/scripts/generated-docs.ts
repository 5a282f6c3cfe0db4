// What the docs scripts (config-docs.ts, rest-docs.ts, webhook-docs.ts) share: each writes documents generated from
// the code, or with `--check` only compares them, and tests import the same scripts without running them.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** Whether the module at `moduleUrl` is the script node was started with, not one a test imported. */
export const invokedDirectly = (moduleUrl: string): boolean =>
  process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(moduleUrl)

/** A file's text, or nothing for a file not written yet. */
export const readIfThere = (file: string): string => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '')

export interface GeneratedDoc {
  file: string
  /** How the messages name it: its path from here unless told. */
  name?: string
  current: string
  next: string
}

/**
 * Writes each generated document, or with `--check` exits 1 naming those that differ from what `source` says now
 * (and the command that rewrites them).
 */
export function writeOrCheck(docs: GeneratedDoc[], source: string, command: string): void {
  const nameOf = (d: GeneratedDoc) => d.name ?? path.relative(process.cwd(), d.file)
  if (process.argv.includes('--check')) {
    const stale = docs.filter((d) => d.current !== d.next).map(nameOf)
    if (stale.length > 0) {
      console.error(`${stale.join(' and ')} ${stale.length === 1 ? 'differs' : 'differ'} from ${source}: run \`${command}\``)
      process.exit(1)
    }
    console.log(`${docs.map(nameOf).join(' and ')} ${docs.length === 1 ? 'matches' : 'match'} ${source}`)
  } else {
    for (const d of docs) {
      fs.writeFileSync(d.file, d.next)
      console.log(`wrote ${path.relative(process.cwd(), d.file)}`)
    }
  }
}
