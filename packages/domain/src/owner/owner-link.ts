import type { SqlRunner } from '../db/sql'

/** One-time invitation and password-reset links for owners (docs/protocol.md §2.13). */
export async function issueOwnerLink(
  db: SqlRunner,
  input: { ownerId: string; kind: 'invitation' | 'reset'; now: Date; ttlSeconds: number; baseUrl: string },
): Promise<{ url: string; expiresAt: Date }> {
  void db
  void input
  throw new Error('owner links: not merged yet')
}
