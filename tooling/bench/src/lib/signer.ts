// Request signing for the load generator. Each request is signed exactly as the Open Payments SDK signs it
// (@interledger/http-signature-utils: label sig1, components @method @target-uri [authorization]
// [content-digest content-length content-type], params keyid and created), but without the library's per-call
// overhead, so the load generator spends its one core on sending requests. `checkSigner` proves the equivalence at
// start-up: Ed25519 is deterministic, so for the same `created` second the SDK's headers and ours are identical.
import { createHash, sign } from 'node:crypto'
import { signedHeaders, type ClientKey } from '@gnap/domain/testing'

export interface SignInput {
  method: string
  url: string
  /** `Authorization` value (e.g. `GNAP <token>`), signed when present. */
  authorization?: string
  /** Compact JSON. */
  body?: string
}

/** The headers the SDK sends for this request, lower-case names, with `created` = `nowSeconds`. */
export function signFast(key: ClientKey, input: SignInput, nowSeconds = Math.floor(Date.now() / 1000)): Record<string, string> {
  const method = input.method.toUpperCase()
  const url = new URL(input.url).href
  const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/json' }
  const components = ['"@method"', '"@target-uri"']
  const lines = [`"@method": ${method}`, `"@target-uri": ${url}`]
  if (input.authorization !== undefined) {
    headers.authorization = input.authorization
    components.push('"authorization"')
    lines.push(`"authorization": ${input.authorization}`)
  }
  if (input.body !== undefined && input.body !== '') {
    const digest = `sha-512=:${createHash('sha512').update(input.body).digest('base64')}:`
    const length = String(Buffer.byteLength(input.body, 'utf8'))
    headers['content-digest'] = digest
    headers['content-length'] = length
    components.push('"content-digest"', '"content-length"', '"content-type"')
    lines.push(`"content-digest": ${digest}`, `"content-length": ${length}`, `"content-type": application/json`)
  }
  const params = `(${components.join(' ')});keyid="${key.kid}";created=${nowSeconds}`
  lines.push(`"@signature-params": ${params}`)
  const signature = sign(null, Buffer.from(lines.join('\n'), 'utf8'), key.privateKey).toString('base64')
  headers.signature = `sig1=:${signature}:`
  headers['signature-input'] = `sig1=${params}`
  return headers
}

/** Throws unless `signFast` gives the very headers the SDK's signer gives, for a body-less and a JSON request. */
export async function checkSigner(key: ClientKey, baseUrl: string): Promise<void> {
  const cases: SignInput[] = [
    { method: 'POST', url: `${baseUrl}token/00000000-0000-4000-8000-000000000000`, authorization: 'GNAP ABCDEF0123' },
    {
      method: 'POST',
      url: `${baseUrl}continue/00000000-0000-4000-8000-000000000000`,
      authorization: 'GNAP 0123ABCDEF',
      body: '{"interact_ref":"x"}',
    },
    {
      method: 'POST',
      url: baseUrl,
      body: '{"access_token":{"access":[{"type":"incoming-payment","actions":["create","read"]}]},"client":"http://127.0.0.1/x"}',
    },
  ]
  for (const input of cases) {
    for (let attempt = 0; ; attempt++) {
      const second = Math.floor(Date.now() / 1000)
      const sdk = await signedHeaders(key, {
        method: input.method,
        url: input.url,
        ...(input.authorization ? { headers: { authorization: input.authorization } } : {}),
        ...(input.body ? { body: input.body } : {}),
      })
      if (Math.floor(Date.now() / 1000) !== second && attempt < 3) continue // crossed a second: `created` differs
      const ours = signFast(key, input, second)
      const a = JSON.stringify(Object.entries(sdk).sort())
      const b = JSON.stringify(Object.entries(ours).sort())
      if (a !== b) throw new Error(`bench signer differs from the SDK's:\n  sdk:  ${a}\n  ours: ${b}`)
      break
    }
  }
}
