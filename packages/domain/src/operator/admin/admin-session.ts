import type { AdminRole } from './roles'

// Administrators' sessions: shared by the sign-in, sign-out and session use cases. Failed sign-ins are limited by
// the limiter the consent screen's owners share (operator/sign-in/sign-in-limit.ts, scope `admin`).

/** Administrator sessions last a working day, then the console asks to sign in again. */
export const ADMIN_SESSION_SECONDS = 8 * 60 * 60

/** An administrator as the console knows them. */
export interface AdminIdentity {
  id: string
  email: string
  role: AdminRole
}
