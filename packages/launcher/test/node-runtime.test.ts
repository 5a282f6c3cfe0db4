// The launcher on a node other than 24 (src/node-runtime.ts): it stops with a message that says what to run, before
// it touches the database. Run in a child process, since the check ends the process.
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { pathWithThisNode } from '../src/node-runtime.js'

const moduleUrl = new URL('../src/node-runtime.ts', import.meta.url).href
const tsx = path.resolve(import.meta.dirname, '..', '..', '..', 'node_modules', '.bin', 'tsx')

function check(version: string) {
  const script = `import(${JSON.stringify(moduleUrl)}).then((m) => { m.requireNodeRuntime('start', ${JSON.stringify(version)}); console.log('went on') })`
  return spawnSync(tsx, ['-e', script], { encoding: 'utf8' })
}

describe('the Node.js version the launcher runs on', () => {
  it('refuses Node.js 20 and says how to get Node.js 24', () => {
    const r = check('20.20.2')
    expect(r.status).toBe(1)
    expect(r.stdout).not.toContain('went on')
    expect(r.stderr).toContain('this is Node.js v20.20.2; the server runs on Node.js 24')
    expect(r.stderr).toContain('. scripts/runtime.sh')
  })

  it('refuses a newer major version too (better-sqlite3 is built for 24)', () => {
    expect(check('26.10.0').status).toBe(1)
  })

  it('goes on with Node.js 24', () => {
    const r = check('24.21.0')
    expect(r.status).toBe(0)
    expect(r.stdout).toContain('went on')
  })

  it("puts this process's node first on the PATH its children get", () => {
    const dir = path.dirname(process.execPath)
    const p = pathWithThisNode(['/usr/bin', dir, '/bin'].join(path.delimiter)).split(path.delimiter)
    expect(p).toEqual([dir, '/usr/bin', '/bin'])
  })
})
