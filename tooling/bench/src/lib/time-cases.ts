/** A named read to time; it answers how many rows it read, printed beside the figures. */
export type TimedCase = readonly [name: string, run: () => Promise<number>]

/**
 * Times each case: two unmeasured warm-up runs, then `runs` measured ones; prints the median, the fastest and the
 * 90th percentile in milliseconds, one line per case (the console benchmarks' common loop).
 */
export async function timeCases(cases: readonly TimedCase[], runs: number): Promise<void> {
  const width = Math.max(...cases.map(([name]) => name.length))
  for (const [name, run] of cases) {
    let rows = 0
    for (let i = 0; i < 2; i++) rows = await run()
    const times: number[] = []
    for (let i = 0; i < runs; i++) {
      const t = performance.now()
      await run()
      times.push(performance.now() - t)
    }
    times.sort((a, b) => a - b)
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? NaN
    console.log(
      `${name.padEnd(width)}  median ${at(0.5).toFixed(2).padStart(7)} ms   min ${at(0).toFixed(2).padStart(7)}   p90 ${at(0.9).toFixed(2).padStart(7)}   (${rows} rows)`,
    )
  }
}
