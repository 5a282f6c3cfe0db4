import { z } from 'zod'
import { GnapError, zodToGnap } from '../../kernel/errors'

// The service API's bodies (docs/protocol.md §2.21), as the Rafiki backend sends them: `POST /tenant`
// {id, apiSecret, idpConsentUrl?, idpSecret?}, `PATCH /tenant/{id}` with any of the last three, `DELETE /tenant/{id}`
// {deletedAt}. Fields the backend leaves out are absent (JSON.stringify drops undefined); a null identity-provider
// field clears it.

const MAX_SECRET = 512
const secret = z.string().min(1).max(MAX_SECRET)
const consentUrl = z
  .string()
  .max(2048)
  .pipe(z.url({ protocol: /^https?$/ }))

const TenantIdSchema = z
  .string()
  .max(36)
  .transform((v) => v.toLowerCase())
  .pipe(z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'id must be a UUID'))

const CreateTenantSchema = z.object({
  id: TenantIdSchema,
  apiSecret: secret,
  idpConsentUrl: consentUrl.nullish(),
  idpSecret: secret.nullish(),
})

const UpdateTenantSchema = z.object({
  apiSecret: secret.optional(),
  idpConsentUrl: consentUrl.nullish(),
  idpSecret: secret.nullish(),
})

const DeleteTenantSchema = z.object({ deletedAt: z.iso.datetime({ offset: true }) })

export type CreateTenantInput = z.infer<typeof CreateTenantSchema>
export type UpdateTenantInput = z.infer<typeof UpdateTenantSchema>

function parse<T>(schema: z.ZodType<T>, json: unknown): T {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new GnapError('invalid_request', 'request body must be a JSON object')
  const parsed = schema.safeParse(json)
  if (!parsed.success) throw zodToGnap(parsed.error)
  return parsed.data
}

/** @throws GnapError invalid_request (400) */
export const parseCreateTenant = (json: unknown): CreateTenantInput => parse(CreateTenantSchema, json)
/** @throws GnapError invalid_request (400) */
export const parseUpdateTenant = (json: unknown): UpdateTenantInput => parse(UpdateTenantSchema, json)
/** The deletion time the backend sends (its own clock's); @throws GnapError invalid_request (400) for no date-time */
export const parseDeleteTenant = (json: unknown): Date => new Date(parse(DeleteTenantSchema, json).deletedAt)
