import { z } from 'zod'
import type { Sql } from '../../kernel/db/sql'
import { newId } from '../../kernel/secrets'
import { hashPassword } from '../sign-in/password'
import { insertOwner } from './owner.repo'
import { assertWalletAddressesFree, WalletAddressSchema } from './manage-owners'

const OwnerInputSchema = z.object({
  email: z
    .email()
    .max(254)
    .transform((e) => e.toLowerCase()),
  name: z.string().min(1).max(120),
  password: z.string().min(8).max(256),
  walletAddresses: z.array(WalletAddressSchema).min(1).max(20),
})

/**
 * Creates a resource owner with the wallet addresses they own, in one transaction (seed data, operators' scripts).
 * @throws ZodError for malformed input; a unique violation (`isUniqueViolation`) for a taken email; ConsoleError
 *   conflict for a wallet address that is (or is above or below) one already owned
 */
export async function createOwner(sql: Sql, input: z.input<typeof OwnerInputSchema>): Promise<{ id: string }> {
  const data = OwnerInputSchema.parse(input)
  const passwordHash = await hashPassword(data.password)
  const id = newId()
  // Hashed before the transaction: no slow work while the write lock is held.
  await sql.transaction(async (tx) => {
    await assertWalletAddressesFree(tx, sql.dialect, data.walletAddresses, null)
    await insertOwner(tx, { id, email: data.email, name: data.name, passwordHash, walletAddresses: data.walletAddresses, now: new Date() })
  })
  return { id }
}
