import { defineConfig } from 'vitest/config'

// End-to-end and HTTP tests: each file starts the production build (`next start`) on a free loopback port
// against a fresh SQLite file, with a loopback wallet-address server for the clients' keys.
//
// Two groups, one after the other (docs/architecture.md, "Where the test time goes"). First the files that only need a
// server of their own, two at a time: most of their time is a server starting, or a test waiting on the protocol's
// `wait`, so two files keep both cores busy. Then, one at a time on an otherwise idle machine, the files whose checks
// hang on timing or on the whole machine: several instances, SIGKILL and restarts, graceful stops, database outages,
// fixed rate-limit windows that a slowed run could straddle, and races between concurrent requests.
const alone = [
  'test/api-keys-http.test.ts',
  'test/client-block.test.ts',
  'test/crash-safety.test.ts',
  'test/database-outage.test.ts',
  'test/graceful-stop.test.ts',
  'test/introspection-listener.test.ts',
  'test/metrics-cluster.test.ts',
  'test/metrics.test.ts',
  'test/multi-instance.test.ts',
  'test/production-start.test.ts',
  'test/races.test.ts',
  'test/rate-limit.test.ts',
  'test/set-password.test.ts',
  'test/sign-in-limits.test.ts',
  'test/webhooks-delivery.test.ts',
]

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 90_000,
    env: { CHECKPOINT_DISABLE: '1', NEXT_TELEMETRY_DISABLED: '1' },
    projects: [
      {
        extends: true,
        test: {
          name: 'http',
          include: ['test/**/*.test.ts'],
          // The image's test runs against a built image, by `pnpm test:image` alone (test/image/vitest.config.ts).
          exclude: [...alone, 'test/image/**'],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
          // `startWorld()` without settings leases a server from this pool instead of starting one per file.
          globalSetup: ['./test/support/server-pool.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'http-alone',
          include: alone,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
          // Their rate-limit tests may first wait up to 30 s for a fresh fixed window (atLeastLeftInWindow), and that
          // wait counts toward the test's time: the default 30 s left a test that waited 29 s too little for its work.
          testTimeout: 90_000,
        },
      },
    ],
  },
})
