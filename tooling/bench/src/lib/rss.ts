// Peak resident memory of a server: VmRSS of a process and all its descendants, read from /proc every 200 ms; and
// the CPU time the tree spent (user + system), which stays meaningful when other processes share the machine. A
// server started by the launcher is a primary with its workers as children: the per-process peak is then the
// largest worker's (the primary serves nothing), the sum counts every process, primary included.
import fs from 'node:fs'

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const TICKS = 100

function children(): Map<number, number[]> {
  const byParent = new Map<number, number[]>()
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces or parentheses, so read after the last ')'.
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      const list = byParent.get(ppid) ?? []
      list.push(Number(name))
      byParent.set(ppid, list)
    } catch {
      // the process ended while we looked
    }
  }
  return byParent
}

export function processTree(pid: number): number[] {
  const byParent = children()
  const tree: number[] = []
  const queue = [pid]
  while (queue.length > 0) {
    const p = queue.shift()!
    tree.push(p)
    queue.push(...(byParent.get(p) ?? []))
  }
  return tree
}

export function rssKb(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) : 0
  } catch {
    return 0
  }
}

/** utime + stime of a process, in ms (0 once it is gone). */
export function cpuMs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // after "pid (comm) ": state(0) ppid(1) … utime(11) stime(12)
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS
  } catch {
    return 0
  }
}

export interface RssPeak {
  /** Largest sum over the process trees, MB. */
  treeMb: number
  /** Largest single serving process (a worker, or the root when it has no children), MB. */
  processMb: number
  processes: number
  /** CPU time of the tree since the last reset, ms. */
  cpuMs: number
}

/**
 * Samples the trees of `pids` (several instances of one server) until `stop()`; `peek()` gives the peaks so far.
 * The trees are re-read every 5 s (workers may be replaced).
 */
export function sampleRss(pids: number | number[], intervalMs = 200) {
  const roots = Array.isArray(pids) ? pids : [pids]
  let trees = roots.map(processTree)
  let treeKb = 0
  let processKb = 0
  let ticks = 0
  const treeCpu = () => trees.flat().reduce((sum, p) => sum + cpuMs(p), 0)
  let cpuStart = treeCpu()
  const sample = () => {
    if (++ticks % 25 === 0) trees = roots.map(processTree)
    let sum = 0
    for (const tree of trees) {
      for (const p of tree) {
        const kb = rssKb(p)
        sum += kb
        // The root of a tree with children is a launcher's primary: not a serving process.
        const serving = tree.length === 1 || p !== tree[0]
        if (serving && kb > processKb) processKb = kb
      }
    }
    if (sum > treeKb) treeKb = sum
  }
  sample()
  const timer = setInterval(sample, intervalMs)
  timer.unref()
  const peek = (): RssPeak => ({
    treeMb: Math.round(treeKb / 1024),
    processMb: Math.round(processKb / 1024),
    processes: trees.flat().length,
    cpuMs: treeCpu() - cpuStart,
  })
  return {
    peek,
    /** Starts a new peak window (per run). */
    reset() {
      treeKb = 0
      processKb = 0
      sample()
      cpuStart = treeCpu()
    },
    stop(): RssPeak {
      clearInterval(timer)
      sample()
      return peek()
    },
  }
}
