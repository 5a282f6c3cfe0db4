// A minimal Next app for the benchmark's ceiling (src/lib/servers.ts builds and starts it with apps/web's next).
// Its node_modules holds symlinks to apps/web's next, react and react-dom, made by the benchmark.
import path from 'node:path'

export default {
  poweredByHeader: false,
  turbopack: { root: path.resolve(import.meta.dirname, '../../..') },
}
