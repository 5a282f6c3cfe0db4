/**
 * The administrator created on an empty database when ADMIN_EMAIL and ADMIN_PASSWORD are not set (README, "Try
 * it"). Its password is public: a production start refuses it (`ensureFirstAdmin`).
 */
export const DEMO_ADMIN = {
  email: 'admin@example.com',
  password: 'admin-demo-password',
} as const
