import { ApiKeyIdInputSchema, createApiKey, CreateApiKeyInputSchema, listApiKeys, revokeApiKey } from '@gnap/domain/operator'
import { adminPersonProcedure, router } from '../trpc'
import { ApiKeyCreatedSchema, ApiKeyListSchema, ApiKeyViewSchema } from '../schemas'

// API keys of back ends (docs/protocol.md §2.18): managed by `admin` people only, never by a key.
export const apiKeysRouter = router({
  /** Every key with its prefix, role, expiry, last use and status, newest first. */
  list: adminPersonProcedure.output(ApiKeyListSchema).query(async ({ ctx }) => ({ items: await listApiKeys(ctx.deps) })),

  /** Creates a key: the answer carries it once; only its hash is kept. BAD_REQUEST for a past expiry; CONFLICT for a name in use. */
  create: adminPersonProcedure
    .input(CreateApiKeyInputSchema)
    .output(ApiKeyCreatedSchema)
    .mutation(({ ctx, input }) => createApiKey(ctx.deps, { ...input, actor: ctx.actor })),

  /** Revokes a key at once. NOT_FOUND; CONFLICT when already revoked. */
  revoke: adminPersonProcedure
    .input(ApiKeyIdInputSchema)
    .output(ApiKeyViewSchema)
    .mutation(({ ctx, input }) => revokeApiKey(ctx.deps, { id: input.id, actor: ctx.actor })),
})
