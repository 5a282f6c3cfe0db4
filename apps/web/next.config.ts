import type { NextConfig } from 'next'
import { MAX_BODY_BYTES } from './src/server/limits'

const config: NextConfig = {
  // Native and adapter packages stay outside the bundle; the workspace domain package is compiled from source.
  serverExternalPackages: ['better-sqlite3', '@prisma/adapter-better-sqlite3', 'pino'],
  transpilePackages: ['@gnap/domain'],
  poweredByHeader: false,
  reactStrictMode: true,
  typescript: { tsconfigPath: './tsconfig.json' },
  experimental: {
    // src/proxy.ts runs for every request, and Next buffers each body in memory for it. One byte over our own
    // limit is enough for the route wrapper to answer 413; a larger body is cut there instead of held (10 MB default).
    proxyClientMaxBodySize: MAX_BODY_BYTES + 1,
  },
}

export default config
