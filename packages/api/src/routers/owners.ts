import * as domain from '@gnap/domain/operator'
import { admin, router, viewer } from '../trpc'
import { OwnerChangeResultSchema, OwnerDetailInputSchema, OwnerDetailSchema, OwnerIdResultSchema, OwnerLinkSchema, OwnerPageSchema } from '../schemas'

// Resource owners in the console (docs/protocol.md §2.13). Every mutation writes an audit entry naming the
// administrator, in the transaction of the change. CONFLICT for a taken email or wallet address, NOT_FOUND for an
// unknown owner.
export const ownersRouter = router({
  /** Newest first, or a search by email (with `@`), name, or wallet address (starting with http), in keyset pages. */
  list: viewer.query(
    ['POST', '/owners/search', 'Lists owners, by name, email or wallet address'],
    domain.ListOwnersInputSchema,
    OwnerPageSchema,
    domain.listOwners,
  ),

  /** Status, wallet addresses, the grants naming them, sign-in activity and audit entries. Never a password hash. */
  byId: viewer.query(
    ['GET', '/owners/{ownerId}', 'One owner with wallet addresses, grants and history'],
    OwnerDetailInputSchema,
    OwnerDetailSchema,
    (deps, { ownerId, actor }) => domain.getOwnerDetail(deps, ownerId, actor),
  ),

  /** A new owner without a password: pass on an invitation link (`issueLink`). */
  create: admin.mutation(
    ['POST', '/owners', 'Adds an owner without a password: pass on an invitation link'],
    domain.CreateOwnerInputSchema,
    OwnerIdResultSchema,
    domain.adminCreateOwner,
  ),

  edit: admin.mutation(
    ['POST', '/owners/{ownerId}/update', 'Changes an owner’s email and name'],
    domain.EditOwnerInputSchema,
    OwnerIdResultSchema,
    domain.editOwner,
  ),

  addWalletAddress: admin.mutation(
    ['POST', '/owners/{ownerId}/wallet-addresses', 'Adds a wallet address to an owner'],
    domain.WalletAddressInputSchema,
    OwnerIdResultSchema,
    domain.addWalletAddress,
  ),

  /** Revokes the grants naming the address when `revokeGrants`. CONFLICT for the owner's last address. */
  removeWalletAddress: admin.mutation(
    ['POST', '/owners/{ownerId}/wallet-addresses/remove', 'Removes a wallet address, revoking its grants if asked'],
    domain.RemoveWalletAddressInputSchema,
    OwnerChangeResultSchema,
    domain.removeWalletAddress,
  ),

  disable: admin.mutation(
    ['POST', '/owners/{ownerId}/disable', 'Disables an owner, revoking their grants if asked'],
    domain.SetOwnerStatusInputSchema,
    OwnerChangeResultSchema,
    domain.disableOwner,
  ),

  enable: admin.mutation(
    ['POST', '/owners/{ownerId}/enable', 'Enables a disabled owner'],
    domain.OwnerIdInputSchema,
    OwnerIdResultSchema,
    domain.enableOwner,
  ),

  /** Revokes every grant on the owner's wallet addresses and ends their sessions; the audit trail stays. */
  delete: admin.mutation(
    ['POST', '/owners/{ownerId}/delete', 'Deletes an owner: revokes their grants and ends their sessions; the audit trail stays'],
    domain.OwnerIdInputSchema,
    OwnerChangeResultSchema,
    domain.adminDeleteOwner,
  ),

  /** A one-time invitation or password-reset link, shown once. */
  issueLink: admin.mutation(
    ['POST', '/owners/{ownerId}/links', 'A one-time invitation or password-reset link, carried once by the answer'],
    domain.IssueOwnerLinkInputSchema,
    OwnerLinkSchema,
    domain.adminIssueOwnerLink,
  ),
})
