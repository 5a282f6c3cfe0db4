// Runs after every `pnpm install` (the root's postinstall): the project runs on Node.js 24 (`. scripts/runtime.sh`
// brings it), and the SQLite driver must load on it. An install under another node stops here with what to do,
// rather than later with a crash in the server.
import { spawnSync } from 'node:child_process'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '..')
const major = Number(process.versions.node.split('.')[0])
if (major !== 24) {
  console.error(`check-runtime: this is Node.js ${process.version}; the project runs on Node.js 24: run \`. scripts/runtime.sh\` first`)
  process.exit(1)
}

// In a child process, as the server would load it.
const probe = "const D = require('better-sqlite3'); new D(':memory:').close()"
const r = spawnSync(process.execPath, ['-e', probe], { cwd: path.join(root, 'packages', 'domain'), encoding: 'utf8' })
if (r.status !== 0) {
  console.error(`check-runtime: better-sqlite3 does not load on Node.js ${process.version}:\n${r.stderr}`)
  process.exit(1)
}
