import type { NextConfig } from 'next'

const config: NextConfig = {
  // Native and adapter packages stay outside the bundle; the workspace domain package is compiled from source.
  serverExternalPackages: ['better-sqlite3', '@prisma/adapter-better-sqlite3', 'pino'],
  transpilePackages: ['@gnap/domain'],
  poweredByHeader: false,
  reactStrictMode: true,
  typescript: { tsconfigPath: './tsconfig.json' },
}

export default config
