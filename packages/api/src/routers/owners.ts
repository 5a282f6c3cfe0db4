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
} from '@gnap/domain/operator'
import { adminOnlyProcedure, router, viewerProcedure } from '../trpc'
import { OwnerChangeResultSchema, OwnerDetailInputSchema, OwnerDetailSchema, OwnerIdResultSchema, OwnerLinkSchema, OwnerPageSchema } from '../schemas'

// Resource owners in the console (docs/protocol.md §2.13). Every mutation writes an audit entry naming the
// administrator, in the transaction of the change. CONFLICT for a taken email or wallet address, NOT_FOUND for an
// unknown owner.
export const ownersRouter = router({
  /** Newest first, or a search by email (with `@`), name, or wallet address (starting with http), in keyset pages. */
  list: viewerProcedure
    .input(ListOwnersInputSchema)
    .output(OwnerPageSchema)
    .query(({ ctx, input }) => listOwners(ctx.deps, input)),

  /** Status, wallet addresses, the grants naming them, sign-in activity and audit entries. Never a password hash. */
  byId: viewerProcedure
    .input(OwnerDetailInputSchema)
    .output(OwnerDetailSchema)
    .query(({ ctx, input }) => getOwnerDetail(ctx.deps, input.ownerId)),

  /** A new owner without a password: pass on an invitation link (`issueLink`). */
  create: adminOnlyProcedure
    .input(CreateOwnerInputSchema)
    .output(OwnerIdResultSchema)
    .mutation(({ ctx, input }) => adminCreateOwner(ctx.deps, { owner: input, actor: ctx.actor })),

  edit: adminOnlyProcedure
    .input(EditOwnerInputSchema)
    .output(OwnerIdResultSchema)
    .mutation(({ ctx, input }) => editOwner(ctx.deps, { change: input, actor: ctx.actor })),

  addWalletAddress: adminOnlyProcedure
    .input(WalletAddressInputSchema)
    .output(OwnerIdResultSchema)
    .mutation(({ ctx, input }) => addWalletAddress(ctx.deps, { change: input, actor: ctx.actor })),

  /** Revokes the grants naming the address when `revokeGrants`. CONFLICT for the owner's last address. */
  removeWalletAddress: adminOnlyProcedure
    .input(RemoveWalletAddressInputSchema)
    .output(OwnerChangeResultSchema)
    .mutation(({ ctx, input }) => removeWalletAddress(ctx.deps, { change: input, actor: ctx.actor })),

  disable: adminOnlyProcedure
    .input(SetOwnerStatusInputSchema)
    .output(OwnerChangeResultSchema)
    .mutation(({ ctx, input }) => disableOwner(ctx.deps, { change: input, actor: ctx.actor })),

  enable: adminOnlyProcedure
    .input(OwnerIdInputSchema)
    .output(OwnerIdResultSchema)
    .mutation(({ ctx, input }) => enableOwner(ctx.deps, { change: input, actor: ctx.actor })),

  /** Revokes every grant on the owner's wallet addresses and ends their sessions; the audit trail stays. */
  delete: adminOnlyProcedure
    .input(OwnerIdInputSchema)
    .output(OwnerChangeResultSchema)
    .mutation(({ ctx, input }) => adminDeleteOwner(ctx.deps, { change: input, actor: ctx.actor })),

  /** A one-time invitation or password-reset link, shown once. */
  issueLink: adminOnlyProcedure
    .input(IssueOwnerLinkInputSchema)
    .output(OwnerLinkSchema)
    .mutation(({ ctx, input }) => adminIssueOwnerLink(ctx.deps, { change: input, actor: ctx.actor })),
})
