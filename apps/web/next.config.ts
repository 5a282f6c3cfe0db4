import type { NextConfig } from 'next'
import { MAX_BODY_BYTES } from './src/server/edge/limits'

const config: NextConfig = {
  // Native and adapter packages stay outside the bundle; the workspace packages are compiled from source. `graphql`
  // (the Admin API's listener, docs/admin-api.md) is loaded by node itself: one copy of the module in the process, as
  // its schema and execution must share.
  // The OpenTelemetry SDK (docs/operating.md "Traces") too: node loads it only when traces are configured, and the
  // API is one module shared with the domain and Next.
  serverExternalPackages: [
    'better-sqlite3',
    '@prisma/adapter-better-sqlite3',
    'pino',
    'prom-client',
    'graphql',
    '@opentelemetry/api',
    '@opentelemetry/sdk-trace',
    '@opentelemetry/exporter-trace-otlp-http',
    '@opentelemetry/context-async-hooks',
    '@opentelemetry/core',
    '@opentelemetry/resources',
  ],
  transpilePackages: ['@gnap/domain', '@gnap/api'],
  poweredByHeader: false,
  // A tenant's grant endpoint, `POST /{tenantId}` (docs/protocol.md §2.21), is served by app/tenant-grant/[tenantId]:
  // only paths shaped as a tenant id go there, so every other path at the root answers as before.
  async rewrites() {
    return {
      beforeFiles: [{ source: '/:tenantId([0-9a-f]+-[0-9a-f]+-[0-9a-f]+-[0-9a-f]+-[0-9a-f]+)', destination: '/tenant-grant/:tenantId' }],
      afterFiles: [],
      fallback: [],
    }
  },
  reactStrictMode: true,
  typescript: { tsconfigPath: './tsconfig.json' },
  experimental: {
    // src/proxy.ts runs for every request, and Next buffers each body in memory for it (10 MB by default). Past
    // this size Next stops buffering and silently drops the rest, from the socket read that crossed it (reads are at
    // most 64 KiB): four times our own limit still leaves the route wrapper more than MAX_BODY_BYTES, so it answers
    // 413, never a cut body.
    proxyClientMaxBodySize: 4 * MAX_BODY_BYTES,
  },
}

export default config
