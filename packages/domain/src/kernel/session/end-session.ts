import type { SqlRunner } from '../db/sql'
import { hashSecret } from '../secrets'
import { deleteSession } from './session.repo'

/** Ends the session of a cookie value, on the store or inside the caller's transaction; nothing for an unknown one. */
export async function endSession(db: SqlRunner, value: string | null): Promise<void> {
  if (!value || value.length > 128) return
  await deleteSession(db, hashSecret(value))
}
