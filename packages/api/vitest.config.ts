import { defineConfig, mergeConfig } from 'vitest/config'
import domainConfig from '../domain/vitest.config'

// The domain's test setup (its files, this package's ./test/global-setup.ts, no outbound network), with more time per
// test: a procedure test runs the router's middlewares and the use case.
export default mergeConfig(domainConfig, defineConfig({ test: { testTimeout: 30_000 } }))
