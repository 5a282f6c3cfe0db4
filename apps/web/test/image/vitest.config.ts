import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// `pnpm test:image` (scripts/test-image.sh): the built image, mounted and run as its user (image.test.ts beside this).
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/image/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    env: { CHECKPOINT_DISABLE: '1', NEXT_TELEMETRY_DISABLED: '1' },
  },
})
