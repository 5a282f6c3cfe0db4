// What the launcher prints as the server's address (src/serve.ts): the URL it was configured to be reached at.
import { describe, expect, it } from 'vitest'
import { announcedAddress } from '../src/serve.js'

describe('announcedAddress', () => {
  it('names AUTH_SERVER_URL as configured, 127.0.0.1 staying 127.0.0.1, with where it listens', () => {
    expect(announcedAddress({ PORT: 4100 }, 'http://127.0.0.1:4100')).toBe('http://127.0.0.1:4100 (listening on every address, port 4100)')
    expect(announcedAddress({ PORT: 3000, HOSTNAME: '127.0.0.1' }, 'https://auth.example.com/')).toBe(
      'https://auth.example.com/ (listening on 127.0.0.1, port 3000)',
    )
  })

  it('names the listening address when AUTH_SERVER_URL is not set', () => {
    expect(announcedAddress({ PORT: 3000 }, undefined)).toBe('http://localhost:3000')
    expect(announcedAddress({ PORT: 3000, HOSTNAME: '127.0.0.1' }, ' ')).toBe('http://127.0.0.1:3000')
  })
})
