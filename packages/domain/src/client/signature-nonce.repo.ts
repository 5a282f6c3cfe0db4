import type { DbTx } from '../db/client'
import { isUniqueViolation } from '../db/errors'

/**
 * Records a signature nonce; false when it was already seen within the window. The primary key decides,
 * so two instances sharing one database can never both accept the same nonce.
 */
export async function rememberSignatureNonce(db: DbTx, keyRef: string, nonce: string, expiresAt: Date): Promise<boolean> {
  await db.signatureNonce.deleteMany({ where: { keyRef, nonce, expiresAt: { lt: new Date() } } })
  try {
    await db.signatureNonce.create({ data: { keyRef, nonce, expiresAt } })
    return true
  } catch (e) {
    if (isUniqueViolation(e)) return false
    throw e
  }
}
