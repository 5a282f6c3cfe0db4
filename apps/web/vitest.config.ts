import { defineConfig } from 'vitest/config'

// End-to-end and HTTP tests: each file starts the production build (`next start`) on a free loopback port
// against a fresh SQLite file, with a loopback wallet-address server for the clients' keys.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 90_000,
    fileParallelism: false,
    env: { CHECKPOINT_DISABLE: '1', NEXT_TELEMETRY_DISABLED: '1' },
  },
})
