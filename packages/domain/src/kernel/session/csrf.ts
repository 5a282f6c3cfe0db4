import { createHash } from 'node:crypto'
import { secretMatches } from '../secrets'

/**
 * The CSRF token of a session, derived from the session's cookie value (which scripts and other sites cannot
 * read): forms carry it, and only its hash is stored.
 */
export const csrfTokenFor = (sessionValue: string): string => createHash('sha256').update(`csrf:${sessionValue}`, 'utf8').digest('base64url')

/** Whether a form's CSRF token belongs to the session (constant time). */
export const csrfMatches = (session: { csrfHash: string }, token: string | null): boolean =>
  typeof token === 'string' && token.length > 0 && token.length <= 128 && secretMatches(token, session.csrfHash)
