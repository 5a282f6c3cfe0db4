import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['./test/global-setup.ts'],
    testTimeout: 20_000,
    // Outbound network is never needed: wallet addresses in tests are served on loopback or stubbed.
    env: { CHECKPOINT_DISABLE: '1' },
  },
})
