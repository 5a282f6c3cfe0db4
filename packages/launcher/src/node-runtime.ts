// The server runs on Node.js 24 LTS (package.json `engines`; `. scripts/runtime.sh` brings it). Started on another
// major version, the launcher says so and stops before anything else: better-sqlite3 is built for one node's ABI,
// and an older node would otherwise fail later with a less helpful message, or run on a runtime without security
// fixes.
import path from 'node:path'

export const REQUIRED_NODE_MAJOR = 24

/** Exits 1 with a plain message when this process's node is not the required major version. */
export function requireNodeRuntime(tag: string, version: string = process.versions.node): void {
  const major = Number(version.split('.')[0])
  if (major === REQUIRED_NODE_MAJOR) return
  console.error(
    `[${tag}] this is Node.js v${version}; the server runs on Node.js ${REQUIRED_NODE_MAJOR}. ` +
      'Run `. scripts/runtime.sh` in the repository (it installs Node.js 24 into .runtime/ if needed), then `pnpm install` and start again.',
  )
  process.exit(1)
}

/**
 * PATH with this process's node first, so that child processes started by name (prisma, tsx) run on the same node
 * as the launcher, even when it was started as `/path/to/node24 packages/launcher/dist/start.js`.
 */
export function pathWithThisNode(pathVar: string | undefined): string {
  const dir = path.dirname(process.execPath)
  return [dir, ...(pathVar ?? '').split(path.delimiter).filter((p) => p && p !== dir)].join(path.delimiter)
}
