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
    .meta({ rest: { method: 'POST', path: '/owners/search', summary: 'Lists owners, by name, email or wallet address' } })
    .input(ListOwnersInputSchema)
    .output(OwnerPageSchema)
    .query(({ ctx, input }) => listOwners(ctx.deps, input)),

  /** Status, wallet addresses, the grants naming them, sign-in activity and audit entries. Never a password hash. */
  byId: viewerProcedure
    .meta({ rest: { method: 'GET', path: '/owners/{ownerId}', summary: 'One owner with wallet addresses, grants and history' } })
    .input(OwnerDetailInputSchema)
    .output(OwnerDetailSchema)
    .query(({ ctx, input }) => getOwnerDetail(ctx.deps, input.ownerId)),

  /** A new owner without a password: pass on an invitation link (`issueLink`). */
  create: adminOnlyProcedure
    .meta({ rest: { method: 'POST', path: '/owners', summary: 'Adds an owner without a password: pass on an invitation link' } })
    .input(CreateOwnerInputSchema)
    .output(OwnerIdResultSchema)
    .mutation(({ ctx, input }) => adminCreateOwner(ctx.deps, { owner: input, actor: ctx.actor })),

  edit: adminOnlyProcedure
    .meta({ rest: { method: 'POST', path: '/owners/{ownerId}/update', summary: 'Changes an owner’s email and name' } })
    .input(EditOwnerInputSchema)
    .output(OwnerIdResultSchema)
    .mutation(({ ctx, input }) => editOwner(ctx.deps, { change: input, actor: ctx.actor })),

  addWalletAddress: adminOnlyProcedure
    .meta({ rest: { method: 'POST', path: '/owners/{ownerId}/wallet-addresses', summary: 'Adds a wallet address to an owner' } })
    .input(WalletAddressInputSchema)
    .output(OwnerIdResultSchema)
    .mutation(({ ctx, input }) => addWalletAddress(ctx.deps, { change: input, actor: ctx.actor })),

  /** Revokes the grants naming the address when `revokeGrants`. CONFLICT for the owner's last address. */
  removeWalletAddress: adminOnlyProcedure
    .meta({
      rest: { method: 'POST', path: '/owners/{ownerId}/wallet-addresses/remove', summary: 'Removes a wallet address, revoking its grants if asked' },
    })
    .input(RemoveWalletAddressInputSchema)
    .output(OwnerChangeResultSchema)
    .mutation(({ ctx, input }) => removeWalletAddress(ctx.deps, { change: input, actor: ctx.actor })),

  disable: adminOnlyProcedure
    .meta({ rest: { method: 'POST', path: '/owners/{ownerId}/disable', summary: 'Disables an owner, revoking their grants if asked' } })
    .input(SetOwnerStatusInputSchema)
    .output(OwnerChangeResultSchema)
    .mutation(({ ctx, input }) => disableOwner(ctx.deps, { change: input, actor: ctx.actor })),

  enable: adminOnlyProcedure
    .meta({ rest: { method: 'POST', path: '/owners/{ownerId}/enable', summary: 'Enables a disabled owner' } })
    .input(OwnerIdInputSchema)
    .output(OwnerIdResultSchema)
    .mutation(({ ctx, input }) => enableOwner(ctx.deps, { change: input, actor: ctx.actor })),

  /** Revokes every grant on the owner's wallet addresses and ends their sessions; the audit trail stays. */
  delete: adminOnlyProcedure
    .meta({
      rest: {
        method: 'POST',
        path: '/owners/{ownerId}/delete',
        summary: 'Deletes an owner: revokes their grants and ends their sessions; the audit trail stays',
      },
    })
    .input(OwnerIdInputSchema)
    .output(OwnerChangeResultSchema)
    .mutation(({ ctx, input }) => adminDeleteOwner(ctx.deps, { change: input, actor: ctx.actor })),

  /** A one-time invitation or password-reset link, shown once. */
  issueLink: adminOnlyProcedure
    .meta({
      rest: { method: 'POST', path: '/owners/{ownerId}/links', summary: 'A one-time invitation or password-reset link, carried once by the answer' },
    })
    .input(IssueOwnerLinkInputSchema)
    .output(OwnerLinkSchema)
    .mutation(({ ctx, input }) => adminIssueOwnerLink(ctx.deps, { change: input, actor: ctx.actor })),
})
