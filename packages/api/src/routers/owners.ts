import {
  addWalletAddress,
  adminCreateOwner,
  adminDeleteOwner,
  adminIssueOwnerLink,
  CreateOwnerInputSchema,
  disableOwner,
  editOwner,
  EditOwnerInputSchema,
  enableOwner,
  getOwnerDetail,
  IssueOwnerLinkInputSchema,
  listOwners,
  ListOwnersInputSchema,
  OwnerIdInputSchema,
  removeWalletAddress,
  RemoveWalletAddressInputSchema,
  SetOwnerStatusInputSchema,
  WalletAddressInputSchema,
} from '@gnap/domain'
import { adminProcedure, mutationProcedure, router } from '../trpc'
import { OwnerChangeResultSchema, OwnerDetailInputSchema, OwnerDetailSchema, OwnerIdResultSchema, OwnerLinkSchema, OwnerPageSchema } from '../schemas'

// Resource owners in the console (docs/protocol.md §2.13). Every mutation writes an audit entry naming the
// administrator, in the transaction of the change. CONFLICT for a taken email or wallet address, NOT_FOUND for an
// unknown owner.
export const ownersRouter = router({
  /** Newest first, or a search by email (with `@`), name, or wallet address (starting with http), in keyset pages. */
  list: adminProcedure
    .input(ListOwnersInputSchema)
    .output(OwnerPageSchema)
    .query(({ ctx, input }) => listOwners(ctx.deps, input)),

  /** Status, wallet addresses, the grants naming them, sign-in activity and audit entries. Never a password hash. */
  byId: adminProcedure
    .input(OwnerDetailInputSchema)
    .output(OwnerDetailSchema)
    .query(({ ctx, input }) => getOwnerDetail(ctx.deps, input.ownerId)),

  /** A new owner without a password: pass on an invitation link (`issueLink`). */
  create: mutationProcedure
    .input(CreateOwnerInputSchema)
    .output(OwnerIdResultSchema)
    .mutation(({ ctx, input }) => adminCreateOwner(ctx.deps, { owner: input, admin: ctx.admin })),

  edit: mutationProcedure
    .input(EditOwnerInputSchema)
    .output(OwnerIdResultSchema)
    .mutation(({ ctx, input }) => editOwner(ctx.deps, { change: input, admin: ctx.admin })),

  addWalletAddress: mutationProcedure
    .input(WalletAddressInputSchema)
    .output(OwnerIdResultSchema)
    .mutation(({ ctx, input }) => addWalletAddress(ctx.deps, { change: input, admin: ctx.admin })),

  /** Revokes the grants naming the address when `revokeGrants`. CONFLICT for the owner's last address. */
  removeWalletAddress: mutationProcedure
    .input(RemoveWalletAddressInputSchema)
    .output(OwnerChangeResultSchema)
    .mutation(({ ctx, input }) => removeWalletAddress(ctx.deps, { change: input, admin: ctx.admin })),

  disable: mutationProcedure
    .input(SetOwnerStatusInputSchema)
    .output(OwnerChangeResultSchema)
    .mutation(({ ctx, input }) => disableOwner(ctx.deps, { change: input, admin: ctx.admin })),

  enable: mutationProcedure
    .input(OwnerIdInputSchema)
    .output(OwnerIdResultSchema)
    .mutation(({ ctx, input }) => enableOwner(ctx.deps, { change: input, admin: ctx.admin })),

  /** Revokes every grant on the owner's wallet addresses and ends their sessions; the audit trail stays. */
  delete: mutationProcedure
    .input(OwnerIdInputSchema)
    .output(OwnerChangeResultSchema)
    .mutation(({ ctx, input }) => adminDeleteOwner(ctx.deps, { change: input, admin: ctx.admin })),

  /** A one-time invitation or password-reset link, shown once. */
  issueLink: mutationProcedure
    .input(IssueOwnerLinkInputSchema)
    .output(OwnerLinkSchema)
    .mutation(({ ctx, input }) => adminIssueOwnerLink(ctx.deps, { change: input, admin: ctx.admin })),
})
