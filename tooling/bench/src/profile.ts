// `pnpm bench:profile`: where a request's time goes. Starts the production build with `--cpu-prof` once per
// operation, drives it as `pnpm bench` does (BENCH_PROFILE_CONCURRENCY connections, default 32, for BENCH_SECONDS
// after a warm-up), stops it so V8 writes the profile, and prints the top self-time and total-time functions and the
// self time per area, counting only the samples taken during the measured run. Minified code is mapped back to
// its source through the build's source maps.
//
//   BENCH_PROFILE_OPS=rotate,introspect  BENCH_PROFILE_DIR=/tmp/prof  BENCH_SECONDS=10  BENCH_CLIENTS=16
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { generateClientKey, migrateFile, startWalletAddressServer } from '@gnap/domain/testing'
import type { BenchClient } from './lib/prepare'
import { continuationScenario, grantScenario, introspectionScenario, rotationScenario, runLoad, type Scenario, type Target } from './lib/load'
import { formatSummary, summarise, type CpuProfile } from './lib/cpuprofile'
import { fairTurnsImport, requireBuild, root, startGnapProcess } from './lib/servers'

const seconds = Number(process.env.BENCH_SECONDS || 10)
const warmup = Number(process.env.BENCH_WARMUP_SECONDS || 2)
const connections = Number(process.env.BENCH_PROFILE_CONCURRENCY || 32)
const ops = (process.env.BENCH_PROFILE_OPS || 'rotate,introspect').split(',').map((s) => s.trim())
const clientCount = Number(process.env.BENCH_CLIENTS || 16)
const stamp = new Date().toISOString().replace(/[:.]/g, '-')
const profileRoot = path.join(process.env.BENCH_PROFILE_DIR || '/tmp/prof', stamp)

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n)

async function main() {
  requireBuild()
  const wallets = await startWalletAddressServer()
  const clients: BenchClient[] = Array.from({ length: clientCount }, (_, i) => ({
    name: `prof-${i}`,
    walletAddress: '',
    key: generateClientKey(`prof-${i}-key`),
  }))
  const summaries: Record<string, unknown> = {}
  try {
    for (const op of ops) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gnap-prof-'))
      const profDir = path.join(profileRoot, op)
      fs.mkdirSync(profDir, { recursive: true })
      const dbFile = path.join(dir, 'prof.db')
      migrateFile(dbFile)
      const server = await startGnapProcess(
        dbFile,
        {
          LOG_LEVEL: 'warn',
          WAIT_SECONDS: '1',
          RATE_LIMIT_GRANTS_PER_MINUTE: '1000000',
          RATE_LIMIT_GRANTS_PER_MINUTE_PER_IP: '1000000',
          ACCESS_TOKEN_EXPIRY_SECONDS: '7200',
        },
        [
          // Node refuses --cpu-prof in NODE_OPTIONS: the server's node gets it on its command line, with the fair
          // event-loop turns the launcher gives each worker.
          fairTurnsImport(),
          '--cpu-prof',
          `--cpu-prof-dir=${profDir}`,
        ],
      )
      let window = { fromUs: 0, toUs: 0 }
      try {
        for (const c of clients)
          c.walletAddress = wallets.addClient(c.name, { publicName: `Profile ${c.name}`, keys: [c.key.jwk], authServer: server.url })
        const target: Target = { name: 'next', url: server.url }
        const scenarios: Record<string, () => Scenario> = {
          rotate: () => rotationScenario(clients),
          introspect: () => introspectionScenario(clients, 2_000),
          continue: () => continuationScenario(clients, { ratePerSecond: 500, max: 20_000, waitSeconds: 1 }),
          grant: () => grantScenario(clients),
        }
        const scenario = scenarios[op]?.()
        if (!scenario) throw new Error(`BENCH_PROFILE_OPS: unknown operation ${op}`)
        await scenario.prepare(target, connections, warmup + seconds)
        if (warmup > 0) await runLoad(target, scenario, connections, warmup)
        window = { fromUs: monotonicUs(), toUs: 0 }
        const result = await runLoad(target, scenario, connections, seconds)
        window.toUs = monotonicUs()
        console.log(
          `[profile] ${op} @${connections}: ${result.rps} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, ${result.errors} errors, ${result.failures} unexpected (profiling slows the server down)`,
        )
      } finally {
        await server.stop()
        fs.rmSync(dir, { recursive: true, force: true })
      }
      // The profile is written when the process exits.
      const deadline = Date.now() + 10_000
      let files: string[] = []
      while (Date.now() < deadline) {
        files = fs.readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile'))
        if (files.length > 0) break
        await new Promise((r) => setTimeout(r, 200))
      }
      if (files.length === 0) throw new Error(`no .cpuprofile in ${profDir}: the server did not exit cleanly`)
      // Every process of the server writes one; the busiest one during the run is the server.
      const best = files
        .map((f) => {
          const profile = JSON.parse(fs.readFileSync(path.join(profDir, f), 'utf8')) as CpuProfile
          return { f, summary: summarise(profile, window) }
        })
        .sort((a, b) => b.summary.sampledMs * (1 - b.summary.idlePct / 100) - a.summary.sampledMs * (1 - a.summary.idlePct / 100))[0]!
      console.log(formatSummary(`${op} @${connections} (${path.join(profDir, best.f)})`, best.summary))
      console.log('')
      summaries[op] = { profile: path.join(profDir, best.f), connections, seconds, ...best.summary }
    }
  } finally {
    await wallets.close()
  }
  const outDir = path.join(root, 'bench', 'results')
  fs.mkdirSync(outDir, { recursive: true })
  const outFile = path.join(outDir, `profile-${stamp}.json`)
  fs.writeFileSync(outFile, JSON.stringify(summaries, null, 2) + '\n')
  console.log(`[profile] summaries written to ${path.relative(root, outFile)}; raw profiles in ${profileRoot}`)
}

main().catch((e: unknown) => {
  console.error('[profile] failed:', e instanceof Error ? (e.stack ?? e.message) : e)
  process.exit(1)
})
