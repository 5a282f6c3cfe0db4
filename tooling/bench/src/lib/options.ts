/** A command-line option's whole number above 0 (`--name 5`), or `fallback` when it is not given. */
export function wholeOption(name: string, fallback: number): number {
  const i = process.argv.indexOf(name)
  const value = i > 0 ? Number(process.argv[i + 1]) : fallback
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} needs a whole number above 0`)
  return value
}
