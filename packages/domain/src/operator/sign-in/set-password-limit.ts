import type { KernelDeps as Deps } from '../../kernel/deps'
import { hitRateLimit } from '../../kernel/rate-limit/rate-limit'

/**
 * Posts of a one-time link's set-password form (docs/protocol.md §7, §2.14) allowed per caller address in ten
 * minutes, or all together when the address is unknown (no TRUST_PROXY): the links' secrets are 256-bit, so this
 * only keeps guessing slow.
 */
export const SET_PASSWORD_LIMITS = { perIp: 20, shared: 600, windowSeconds: 600 } as const

/** Counts one post from `ip` (null: unknown); the seconds until another is allowed, or null when this one is within the limit. */
export async function admitSetPasswordPost(deps: Deps, ip: string | null): Promise<number | null> {
  const hit = await hitRateLimit(
    deps.sql,
    ip === null ? 'set-password:all' : `set-password:ip:${ip}`,
    ip === null ? SET_PASSWORD_LIMITS.shared : SET_PASSWORD_LIMITS.perIp,
    SET_PASSWORD_LIMITS.windowSeconds,
    deps.clock(),
  )
  if (hit.allowed) return null
  deps.metrics.rateLimited('set_password')
  return hit.retryAfterSeconds
}
