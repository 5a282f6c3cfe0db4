import type { SqlRunner } from '../../kernel/db/sql'
import { newId } from '../../kernel/secrets'

// Every SQL statement about a grant's subject identifiers (docs/protocol.md §2.1). Written with their grant and never
// changed afterwards.

/** Stores the subject identifiers of a grant's subject request (format "uri"), in request order. */
export async function insertGrantSubjects(tx: SqlRunner, grantId: string, subIds: string[]): Promise<void> {
  for (const [position, subId] of subIds.entries()) {
    await tx.run(`INSERT INTO "GrantSubject" ("id", "grantId", "position", "format", "subId") VALUES ($1, $2, $3, 'uri', $4)`, [
      newId(),
      grantId,
      position,
      subId,
    ])
  }
}

/** A grant's subject identifiers in request order; empty when the grant asked for none. */
export async function findGrantSubjectIds(db: SqlRunner, grantId: string): Promise<string[]> {
  const rows = await db.all<{ subId: string }>(`SELECT "subId" FROM "GrantSubject" WHERE "grantId" = $1 ORDER BY "position" ASC`, [grantId])
  return rows.map((r) => r.subId)
}
