import { describe, expect, it } from 'vitest'
import { routeTemplate } from '../src/server/process/metrics'

describe('routeTemplate', () => {
  it('names each parameter segment, never its value', () => {
    expect(routeTemplate('/', {})).toBe('/')
    expect(routeTemplate('/introspect', {})).toBe('/introspect')
    expect(routeTemplate('/continue/0a1b2c3d-0000-4000-8000-000000000000', { id: '0a1b2c3d-0000-4000-8000-000000000000' })).toBe('/continue/[id]')
    expect(routeTemplate('/grant/i1/n1/accept', { id: 'i1', nonce: 'n1', choice: 'accept' })).toBe('/grant/[id]/[nonce]/[choice]')
    // A value equal to a literal segment, or to another parameter's value, still lands on its own segment.
    expect(routeTemplate('/token/token', { id: 'token' })).toBe('/token/[id]')
    expect(routeTemplate('/grant/x/x/x', { id: 'x', nonce: 'x', choice: 'x' })).toBe('/grant/[id]/[nonce]/[choice]')
    expect(routeTemplate('/continue/a%20b', { id: 'a b' })).toBe('/continue/[id]')
  })

  it('gives up (null) when a parameter is not a segment of the path', () => {
    expect(routeTemplate('/continue/abc', { id: 'xyz' })).toBeNull()
    expect(routeTemplate('/api/v1/a/b', { path: ['a', 'b'] })).toBeNull()
  })
})
