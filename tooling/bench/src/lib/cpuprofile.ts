// Summarises a V8 .cpuprofile (node --cpu-prof): self and total time per function and self time per area
// (package, Next's runtime, our source folders). Minified code (the Next build, Next's compiled runtime) is mapped
// back through its source maps, and the function's name is read from the original source line.
import fs from 'node:fs'
import path from 'node:path'
import { SourceMap } from 'node:module'
import { fileURLToPath } from 'node:url'

interface CallFrame {
  functionName: string
  url: string
  lineNumber: number
  columnNumber: number
}

interface ProfileNode {
  id: number
  callFrame: CallFrame
  children?: number[]
}

export interface CpuProfile {
  nodes: ProfileNode[]
  startTime: number
  endTime: number
  samples: number[]
  timeDeltas: number[]
}

export interface FunctionTime {
  name: string
  where: string
  area: string
  selfMs: number
  selfPct: number
  totalMs: number
  totalPct: number
}

export interface ProfileSummary {
  sampledMs: number
  /** Share of samples in which the process was idle (waiting for I/O). */
  idlePct: number
  gcPct: number
  topSelf: FunctionTime[]
  topTotal: FunctionTime[]
  areas: { area: string; selfMs: number; selfPct: number }[]
}

const root = path.resolve(import.meta.dirname, '../../../..')

interface Resolved {
  name: string
  where: string
  area: string
}

const maps = new Map<string, { map: SourceMap; dir: string; sources: Map<string, string[]> } | null>()

function loadMap(file: string) {
  if (maps.has(file)) return maps.get(file)!
  let entry: { map: SourceMap; dir: string; sources: Map<string, string[]> } | null = null
  try {
    const payload = JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')) as { sources?: string[]; sourcesContent?: (string | null)[] }
    const sources = new Map<string, string[]>()
    payload.sources?.forEach((s, i) => {
      const content = payload.sourcesContent?.[i]
      if (typeof content === 'string') sources.set(s, content.split('\n'))
    })
    entry = { map: new SourceMap(payload as ConstructorParameters<typeof SourceMap>[0]), dir: path.dirname(file), sources }
  } catch {
    entry = null
  }
  maps.set(file, entry)
  return entry
}

/** The area a file belongs to: an npm package, Next's runtime, or one of our folders. */
function areaOf(file: string): string {
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(file)
  if (pkg) return pkg[1]!.replace('%40', '@')
  if (file.startsWith('node:')) return 'node'
  const ours = /(apps\/web\/src|packages\/domain\/src)\/([^/]+)/.exec(file)
  if (ours) return `${ours[1]}/${ours[2]}`.replace(/\.tsx?$/, '')
  return file
}

const NAME_PATTERNS = [
  /(?:async\s+)?function\s*\*?\s*([\w$]+)\s*\(/,
  /([\w$]+)\s*[:=]\s*(?:async\s*)?(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>|[\w$]+\s*=>)/,
  /(?:async\s+)?([\w$]+)\s*\([^)]*\)\s*(?::[^{]+)?\{/,
]

function nameFromLine(line: string | undefined, column: number): string | null {
  if (line === undefined) return null
  const from = line.slice(Math.max(0, column - 40))
  for (const p of NAME_PATTERNS) {
    const m = p.exec(from)
    if (m?.[1] && !['if', 'for', 'while', 'switch', 'catch', 'return'].includes(m[1])) return m[1]
  }
  return null
}

const resolved = new Map<string, Resolved>()

function resolve(frame: CallFrame): Resolved {
  const key = `${frame.functionName}|${frame.url}|${frame.lineNumber}|${frame.columnNumber}`
  const hit = resolved.get(key)
  if (hit) return hit
  let out: Resolved
  if (!frame.url) {
    out = { name: frame.functionName || '(anonymous)', where: '', area: frame.functionName.startsWith('(') ? frame.functionName : 'native' }
  } else if (frame.url.startsWith('node:')) {
    out = { name: frame.functionName || '(anonymous)', where: `${frame.url}:${frame.lineNumber + 1}`, area: 'node' }
  } else {
    const file = frame.url.startsWith('file://') ? fileURLToPath(frame.url) : frame.url
    const map = frame.lineNumber >= 0 ? loadMap(file) : null
    const entry = map?.map.findEntry(frame.lineNumber, frame.columnNumber) as
      { originalSource?: string; originalLine?: number; originalColumn?: number; name?: string } | undefined
    if (map && entry?.originalSource !== undefined && entry.originalLine !== undefined) {
      const source = decodeURIComponent(path.resolve(map.dir, entry.originalSource.replace(/^[a-z]+:\/\/\/?(\[project\]\/)?/, '')))
      const lines = map.sources.get(entry.originalSource)
      const name = entry.name ?? nameFromLine(lines?.[entry.originalLine], entry.originalColumn ?? 0) ?? `${frame.functionName || 'anonymous'}`
      const rel = path.relative(root, source).replace(/^node_modules\/\.pnpm\/[^/]+\/node_modules\//, '')
      out = { name, where: `${rel}:${entry.originalLine + 1}`, area: areaOf(path.relative(root, source)) }
    } else {
      const rel = path.relative(root, file).replace(/^node_modules\/\.pnpm\/[^/]+\/node_modules\//, '')
      out = { name: frame.functionName || '(anonymous)', where: `${rel}:${frame.lineNumber + 1}`, area: areaOf(path.relative(root, file)) }
    }
  }
  resolved.set(key, out)
  return out
}

/**
 * Aggregates the samples taken between `fromUs` and `toUs` (the profile's clock: CLOCK_MONOTONIC in µs, the same
 * clock as process.hrtime in any process on this machine), or all of them.
 */
export function summarise(profile: CpuProfile, window?: { fromUs: number; toUs: number }, top = 25): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)

  const self = new Map<string, number>()
  const total = new Map<string, number>()
  const areas = new Map<string, number>()
  const info = new Map<string, Resolved>()
  let t = profile.startTime
  let sampled = 0
  let idle = 0
  let gc = 0
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0
    if (window && (t < window.fromUs || t > window.toUs)) continue
    // A sample stands for the time until the next one.
    const weight = (profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0) / 1000
    sampled += weight
    const node = byId.get(profile.samples[i]!)
    if (!node) continue
    const r = resolve(node.callFrame)
    if (r.name === '(idle)') idle += weight
    if (r.name === '(garbage collector)') gc += weight
    const selfKey = `${r.name} ${r.where}`
    info.set(selfKey, r)
    self.set(selfKey, (self.get(selfKey) ?? 0) + weight)
    areas.set(r.area, (areas.get(r.area) ?? 0) + weight)
    const seen = new Set<string>()
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const fr = resolve(byId.get(id)!.callFrame)
      const k = `${fr.name} ${fr.where}`
      if (seen.has(k)) continue
      seen.add(k)
      info.set(k, fr)
      total.set(k, (total.get(k) ?? 0) + weight)
    }
  }
  const pct = (ms: number) => Math.round((ms / Math.max(sampled, 1e-9)) * 1000) / 10
  const row = (k: string): FunctionTime => {
    const r = info.get(k)!
    const s = self.get(k) ?? 0
    const tt = total.get(k) ?? 0
    return { name: r.name, where: r.where, area: r.area, selfMs: Math.round(s), selfPct: pct(s), totalMs: Math.round(tt), totalPct: pct(tt) }
  }
  const notMeta = (k: string) => !/^\((root|program|idle)\) $/.test(k)
  return {
    sampledMs: Math.round(sampled),
    idlePct: pct(idle),
    gcPct: pct(gc),
    topSelf: [...self.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k]) => row(k)),
    topTotal: [...total.entries()]
      .filter(([k]) => notMeta(k))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k]) => row(k)),
    areas: [...areas.entries()].sort((a, b) => b[1] - a[1]).map(([area, ms]) => ({ area, selfMs: Math.round(ms), selfPct: pct(ms) })),
  }
}

export function formatSummary(title: string, s: ProfileSummary, top = 20): string {
  const fn = (f: FunctionTime, by: 'self' | 'total') =>
    `  ${String(by === 'self' ? f.selfPct : f.totalPct).padStart(5)}%  ${String(by === 'self' ? f.selfMs : f.totalMs).padStart(6)} ms  ${f.name}  ${f.where}`
  return [
    `== ${title}: ${s.sampledMs} ms sampled, idle ${s.idlePct}%, GC ${s.gcPct}%`,
    '-- self time by area',
    ...s.areas.slice(0, 15).map((a) => `  ${String(a.selfPct).padStart(5)}%  ${String(a.selfMs).padStart(6)} ms  ${a.area}`),
    '-- top self time',
    ...s.topSelf.slice(0, top).map((f) => fn(f, 'self')),
    '-- top total time (inclusive)',
    ...s.topTotal.slice(0, top).map((f) => fn(f, 'total')),
  ].join('\n')
}
