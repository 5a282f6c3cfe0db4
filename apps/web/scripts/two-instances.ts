// `DATABASE_URL=postgresql://… pnpm two-instances`: the multi-instance set-up on one machine, for tests and trials. Migrates
// the database, starts two instances of the server against it on two ports (each the launcher, @gnap/launcher, with
// --workers workers), prints their URLs and the public address both answer for, and stops both on Ctrl-C
// (SIGINT) or SIGTERM. If one instance stops on its own, it stops the other and exits 1.
//
//   DATABASE_URL=postgresql://gnap:gnap@127.0.0.1:5432/gnap pnpm two-instances [--ports 3001,3002] [--workers 1] [--host 127.0.0.1]
//
// The URL is read from the environment only: on the command line its password would show in `ps` and in pnpm's
// echo of the command.
// The servers' settings come from the environment, as for `pnpm start` (outside NODE_ENV=production the secrets
// come from data/secrets.json and AUTH_SERVER_URL defaults to the first instance's URL; behind a proxy, set it to
// the proxy's public URL). The database must exist; its role must be allowed to create tables in it.
import { parseArgs } from 'node:util'
import { z } from 'zod'
import { applyLocalDefaults } from '@gnap/launcher/local-settings'
import { startInstances, type Instance } from '@gnap/test-support'

const usage =
  'usage: DATABASE_URL=postgresql://user:password@host:port/database pnpm two-instances [--ports 3001,3002] [--workers 1] [--host 127.0.0.1]'

const ArgsSchema = z.object({
  databaseUrl: z
    .string({ error: 'DATABASE_URL must name the PostgreSQL database' })
    .regex(/^postgres(ql)?:\/\/[^/]+\/[^/?]+/, 'must be a postgresql://host/database URL')
    .refine((u) => URL.canParse(u), 'is not a valid URL'),
  ports: z
    .string()
    .transform((s) => s.split(',').map((p) => Number(p.trim())))
    .pipe(z.array(z.number().int().min(1).max(65535)).min(2).max(8))
    .refine((ports) => new Set(ports).size === ports.length, 'must be distinct'),
  workers: z.coerce.number().int().min(1).max(64),
  host: z.string().min(1),
})

/** The URL without its password, for printing. */
function redacted(url: string): string {
  const u = new URL(url)
  if (u.password) u.password = '***'
  return u.toString()
}

async function main(): Promise<number> {
  let values
  try {
    ;({ values } = parseArgs({
      options: {
        ports: { type: 'string', default: '3001,3002' },
        workers: { type: 'string', default: '1' },
        host: { type: 'string', default: '127.0.0.1' },
        help: { type: 'boolean' },
      },
    }))
  } catch {
    // parseArgs' message repeats the argument, which may be a URL with its password.
    console.error('[two-instances] unknown option or argument (the database URL goes in DATABASE_URL)')
    console.error(usage)
    return 2
  }
  if (values.help) {
    console.log(usage)
    return 0
  }
  const parsed = ArgsSchema.safeParse({ databaseUrl: process.env.DATABASE_URL, ports: values.ports, workers: values.workers, host: values.host })
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      console.error(`[two-instances] ${issue.path.join('.') === 'databaseUrl' ? 'DATABASE_URL' : `--${issue.path.join('.')}`}: ${issue.message}`)
    console.error(usage)
    return 2
  }
  const { databaseUrl, ports, workers, host } = parsed.data
  const env: Record<string, string | undefined> = { ...process.env, CHECKPOINT_DISABLE: '1', NEXT_TELEMETRY_DISABLED: '1' }
  const missing = applyLocalDefaults(env, { tag: 'two-instances', authServerUrl: `http://${host}:${ports[0]}/` })
  if (missing.length) {
    console.error(`[two-instances] NODE_ENV=production requires: ${missing.join(', ')}`)
    return 1
  }

  console.log(`[two-instances] migrating ${redacted(databaseUrl)}, then ${ports.length} instances of ${workers} worker(s) each`)
  let instances: Instance[]
  try {
    instances = await startInstances({ databaseUrl, env, ports, host, workers, onLine: (line, name) => console.log(`[${name}] ${line}`) })
  } catch (e) {
    console.error(`[two-instances] could not start: ${e instanceof Error ? e.message : String(e)}`)
    return 1
  }
  for (const i of instances) console.log(`[two-instances] instance ${i.name}: ${i.url} (pid ${i.pid})`)
  console.log(`[two-instances] public address (AUTH_SERVER_URL) of both: ${env.AUTH_SERVER_URL}`)
  console.log('[two-instances] ready; Ctrl-C stops both')

  const stopAll = () => Promise.all(instances.map((i) => i.stop()))
  return new Promise<number>((resolve) => {
    let stopping = false
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.on(signal, () => {
        if (stopping) return
        stopping = true
        console.log(`[two-instances] ${signal}: stopping both instances`)
        void stopAll().then(() => resolve(0))
      })
    }
    for (const i of instances) {
      void i.exited.then((code) => {
        if (stopping) return
        stopping = true
        console.error(`[two-instances] !!! instance ${i.name} stopped on its own (exit ${code}): stopping the others`)
        void stopAll().then(() => resolve(1))
      })
    }
  })
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error('[two-instances] failed:', e instanceof Error ? (e.stack ?? e.message) : e)
    process.exit(1)
  },
)
