import { describe, expect, it } from 'vitest'
import { SET_PASSWORD_LIMITS, admitSetPasswordPost } from './set-password-limit'
import { useTestDeps } from '../../testing/use-test-deps'

const t = useTestDeps()

describe('set-password posts are limited per caller address', () => {
  it('allows the per-address limit in a window, refuses the next with the seconds to wait, and counts each address apart', async () => {
    for (let i = 0; i < SET_PASSWORD_LIMITS.perIp; i++) expect(await admitSetPasswordPost(t.deps, '192.0.2.1')).toBeNull()
    const wait = await admitSetPasswordPost(t.deps, '192.0.2.1')
    expect(wait).toBeGreaterThan(0)
    expect(wait).toBeLessThanOrEqual(SET_PASSWORD_LIMITS.windowSeconds)
    expect(await admitSetPasswordPost(t.deps, '192.0.2.2')).toBeNull()
    t.clock.advance(SET_PASSWORD_LIMITS.windowSeconds)
    expect(await admitSetPasswordPost(t.deps, '192.0.2.1')).toBeNull()
  })

  it('counts callers of unknown address (no TRUST_PROXY) together, against the shared limit', async () => {
    for (let i = 0; i < SET_PASSWORD_LIMITS.shared; i++) expect(await admitSetPasswordPost(t.deps, null)).toBeNull()
    expect(await admitSetPasswordPost(t.deps, null)).toBeGreaterThan(0)
    expect(await admitSetPasswordPost(t.deps, '192.0.2.1')).toBeNull()
  })
})
