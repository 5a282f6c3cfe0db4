// Administrators' sessions and sign-in limits: shared by the sign-in, sign-out and session use cases.

/** Administrator sessions last a working day, then the console asks to sign in again. */
export const ADMIN_SESSION_SECONDS = 8 * 60 * 60

/**
 * Failed sign-ins allowed per fixed window, per email and per caller IP (one shared counter when the IP is not
 * known). Only failures count, so a team signing in often is never locked out; a refused attempt does not check
 * the password at all (no argon2 work for an attacker to spend).
 */
export const ADMIN_SIGN_IN_LIMITS = { failuresPerEmail: 10, failuresPerIp: 50, windowSeconds: 15 * 60 } as const

/** An administrator as the console knows them. */
export interface AdminIdentity {
  id: string
  email: string
}
