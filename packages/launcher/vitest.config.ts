import { defineConfig } from 'vitest/config'

// The launcher's own tests: its modules in this process, on loopback HTTP servers of their own (no Next build).
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
  },
})
