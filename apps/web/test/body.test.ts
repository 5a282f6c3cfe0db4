// The one body reader (src/server/edge/body.ts): the byte cap, declared or sent, and the JSON depth cap, checked
// before any parsing. No server is needed: every route that reads a body goes through these functions.
import { describe, expect, it } from 'vitest'
import { FORM_LIMITS, JSON_LIMITS, jsonDepthExceeds, readBody, readForm } from '../src/server/edge/body'

const post = (body: BodyInit | null, headers: Record<string, string> = {}) => new Request('http://127.0.0.1/', { method: 'POST', body, headers })
const utf8 = (text: string) => new TextEncoder().encode(text)

/** A body sent in chunks, with no Content-Length: only the bytes read can tell its size. */
const streamed = (chunks: Uint8Array[]) =>
  new Request('http://127.0.0.1/', {
    method: 'POST',
    body: new ReadableStream({
      pull(controller) {
        const next = chunks.shift()
        if (next) controller.enqueue(next)
        else controller.close()
      },
    }),
    duplex: 'half',
  } as RequestInit)

describe('readBody', () => {
  it('reads a body within the caps as its bytes, and an absent body as none', async () => {
    expect(await readBody(post('{"a":[1]}'), JSON_LIMITS)).toEqual({ kind: 'read', bytes: utf8('{"a":[1]}') })
    expect(await readBody(post(null), JSON_LIMITS)).toEqual({ kind: 'read', bytes: new Uint8Array() })
  })

  it('refuses a body declared larger than the cap without reading it', async () => {
    expect(await readBody(post('{}', { 'content-length': String(JSON_LIMITS.maxBytes + 1) }), JSON_LIMITS)).toEqual({ kind: 'too-large' })
  })

  it('refuses a body that sends more than the cap, whatever it declared', async () => {
    const chunk = new Uint8Array(16 * 1024).fill(0x20)
    const chunks = Array.from({ length: JSON_LIMITS.maxBytes / chunk.length + 1 }, () => chunk)
    expect(await readBody(streamed(chunks), JSON_LIMITS)).toEqual({ kind: 'too-large' })
    expect((await readBody(streamed(chunks.slice(1)), JSON_LIMITS)).kind).toBe('read')
  })

  it('refuses JSON nested deeper than maxDepth and keeps its bytes; brackets inside strings do not count', async () => {
    const depth = JSON_LIMITS.maxDepth ?? 0
    const deep = '['.repeat(depth + 1) + ']'.repeat(depth + 1)
    expect(await readBody(post(deep), JSON_LIMITS)).toEqual({ kind: 'too-deep', bytes: utf8(deep) })
    expect((await readBody(post('['.repeat(depth) + ']'.repeat(depth)), JSON_LIMITS)).kind).toBe('read')
    expect((await readBody(post(JSON.stringify({ s: '[{'.repeat(100) + '\\"[' })), JSON_LIMITS)).kind).toBe('read')
    // Without maxDepth (a form), nesting is not looked at.
    expect((await readBody(post(deep), FORM_LIMITS)).kind).toBe('read')
  })
})

describe('jsonDepthExceeds', () => {
  it('counts the bytes as the decoded text would: multi-byte characters and invalid UTF-8 hide no bracket', () => {
    expect(jsonDepthExceeds(utf8('[["é€😀", {"k": ["ü"]}]]'), 4)).toBe(false)
    expect(jsonDepthExceeds(utf8('[["é€😀", {"k": ["ü"]}]]'), 3)).toBe(true)
    // A lone lead byte before a quote: the decoder replaces the lead byte and still reads the quote, as the scan does.
    expect(jsonDepthExceeds(new Uint8Array([0x22, 0xc3, 0x22, 0x5b, 0x5b]), 1)).toBe(true)
    // An escaped quote inside a string does not end it.
    expect(jsonDepthExceeds(utf8('["\\"[[[["]'), 1)).toBe(false)
  })

  it('agrees with a count over the decoded text on random bytes, valid UTF-8 or not', () => {
    // The count over text, as the edges did it before reading bytes: the decoder replaces invalid sequences.
    const overText = (text: string, max: number) => {
      let depth = 0
      let inString = false
      for (let i = 0; i < text.length; i++) {
        const c = text[i]
        if (inString) {
          if (c === '\\') i++
          else if (c === '"') inString = false
        } else if (c === '"') inString = true
        else if (c === '[' || c === '{') {
          if (++depth > max) return true
        } else if (c === ']' || c === '}') depth--
      }
      return false
    }
    const alphabet = [0x5b, 0x5d, 0x7b, 0x7d, 0x22, 0x5c, 0x61, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0xff, 0xed, 0xa0]
    let seed = 27
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    for (let n = 0; n < 3000; n++) {
      const bytes = Uint8Array.from({ length: Math.floor(random() * 24) }, () => alphabet[Math.floor(random() * alphabet.length)] ?? 0)
      const max = Math.floor(random() * 4)
      expect(jsonDepthExceeds(bytes, max), Buffer.from(bytes).toString('hex')).toBe(overText(new TextDecoder().decode(bytes), max))
    }
  })
})

describe('readForm', () => {
  const form = (body: string, type = 'application/x-www-form-urlencoded') => post(body, { 'content-type': type })

  it('reads an urlencoded form', async () => {
    expect((await readForm(form('csrf=abc&choice=approve'))).get('choice')).toBe('approve')
  })

  it('reads another content type, or a form over its cap, as an empty form', async () => {
    expect([...(await readForm(form('choice=approve', 'text/plain')))]).toEqual([])
    expect([...(await readForm(form(`choice=${'a'.repeat(FORM_LIMITS.maxBytes)}`)))]).toEqual([])
  })
})
