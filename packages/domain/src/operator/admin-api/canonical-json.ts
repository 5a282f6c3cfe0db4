// The canonical JSON of an Admin API request body (docs/admin-api.md, "Signing a request"): what the HMAC covers. The
// body is read as JSON, then written again with no whitespace, every object's members sorted by name (by UTF-16 code
// units, JavaScript's default sort), arrays in their order, and numbers and strings as JSON.stringify writes them.
// This is the canonical form Rafiki's Admin API clients sign (the `json-canonicalize` serialisation), checked byte for
// byte by canonical-json.test.ts.

/** The canonical JSON text of a parsed JSON value. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (Array.isArray(value)) return `[${value.map((v: unknown) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`
  const record = value as Record<string, unknown>
  const members = Object.keys(record)
    .filter((k) => record[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`)
  return `{${members.join(',')}}`
}
