import path from 'node:path'
import { defineConfig } from '@playwright/test'

// Browser tests of the consent screen on Debian's chromium (`npx playwright install` cannot work here, see
// docs/architecture.md). Each spec file starts the production build (`next start`, run `next build` first) on a free loopback
// port through @gnap/test-support's startServer, so AUTH_SERVER_URL is the very URL the browser and the SDK use.
const reportDir = path.resolve(import.meta.dirname, process.env.TEST_REPORT_DIR ?? '../../test-results')

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results/playwright',
  forbidOnly: !!process.env.CI,
  retries: 0,
  // Two spec files at a time, each worker with its own `next start` and browser: one alone leaves a core of a 2-core
  // CI machine idle while the browser waits on the server and the server on the browser (docs/architecture.md,
  // "Where the test time goes").
  workers: 2,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list'], ['json', { outputFile: path.join(reportDir, 'playwright.json') }]],
  use: {
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  projects: [
    {
      name: 'ui',
      use: {
        browserName: 'chromium',
        viewport: { width: 1280, height: 800 },
        launchOptions: {
          executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
          args: [
            '--headless',
            '--no-sandbox',
            '--disable-gpu',
            '--disable-quic',
            '--no-first-run',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
          ],
        },
      },
    },
  ],
})
