import { readCapped } from '@gnap/domain/kernel'
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from './limits'

// The one body reader of the web edge: every route that reads a request body (the GNAP wrapper, the console's tRPC
// endpoint, the REST form, the browser forms, the introspection listener) reads it here, capped in bytes and, for
// JSON, in nesting depth. Each edge answers a refusal in its own shape (a GNAP error, a tRPC or REST error, an empty
// form); what counts as too large or too deep is decided only here.

export interface BodyLimits {
  /** Bodies declared (Content-Length) or sent above this many bytes are refused unread past the cap. */
  maxBytes: number
  /** JSON opening more arrays or objects than this inside each other is refused before parsing; unset: not checked. */
  maxDepth?: number
}

/** The caps of every JSON endpoint: no request of the contract, the console or the REST form comes close. */
export const JSON_LIMITS: Readonly<BodyLimits> = Object.freeze({ maxBytes: MAX_BODY_BYTES, maxDepth: MAX_JSON_DEPTH })

/** The cap of a browser form (the consent screen's, the account's and the password pages'). */
export const FORM_LIMITS: Readonly<BodyLimits> = Object.freeze({ maxBytes: 8 * 1024 })

/** A body as read: its bytes, or the reason it is refused (a too-deep body keeps its bytes for the edge's own order of checks). */
export type BodyRead = { kind: 'read'; bytes: Uint8Array } | { kind: 'too-large' } | { kind: 'too-deep'; bytes: Uint8Array }

const TOO_LARGE: BodyRead = Object.freeze({ kind: 'too-large' })

/** Reads a request's body within `limits` (an absent body reads as no bytes). */
export async function readBody(req: Request, limits: BodyLimits): Promise<BodyRead> {
  if (Number(req.headers.get('content-length') ?? '0') > limits.maxBytes) return TOO_LARGE
  return checkBody(await readCapped(req.body, limits.maxBytes), limits)
}

/** The limits applied to bytes read elsewhere (null: the byte cap was passed while reading). */
export function checkBody(bytes: Uint8Array | null, limits: BodyLimits): BodyRead {
  if (bytes === null) return TOO_LARGE
  if (limits.maxDepth !== undefined && jsonDepthExceeds(bytes, limits.maxDepth)) return { kind: 'too-deep', bytes }
  return { kind: 'read', bytes }
}

/** Reads a small urlencoded form; a body of another type, or over the form cap, reads as an empty form. */
export async function readForm(req: Request): Promise<URLSearchParams> {
  const type = req.headers.get('content-type') ?? ''
  if (!type.startsWith('application/x-www-form-urlencoded')) return new URLSearchParams()
  const read = await readBody(req, FORM_LIMITS)
  return new URLSearchParams(read.kind === 'read' ? new TextDecoder().decode(read.bytes) : '')
}

const QUOTE = 0x22
const BACKSLASH = 0x5c

/**
 * Whether JSON opens more than `max` arrays or objects inside each other, counted in one pass over its UTF-8 bytes
 * before parsing (brackets inside strings do not count), so no later recursion over the value can run deep. The bytes
 * give the same count as the decoded text: in UTF-8 (RFC 3629 §3) the ASCII brackets, quote and backslash never occur
 * inside a multi-byte character.
 */
export function jsonDepthExceeds(bytes: Uint8Array, max: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]
    if (inString) {
      if (c === BACKSLASH)
        i++ // skip the escaped character
      else if (c === QUOTE) inString = false
    } else if (c === QUOTE) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}
