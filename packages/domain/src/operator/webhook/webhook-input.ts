import { z } from 'zod'
import { WEBHOOK_EVENT_TYPES } from '../../protocol/events/event-types'
import { TenantIdInputSchema } from '../tenant-input'

// The fields of adding or changing a webhook endpoint, with no server-side imports: the console's browser code checks
// its forms with them too (`@gnap/domain/console-inputs`), so both say the same thing.

export const MAX_WEBHOOK_URL_LENGTH = 2048
export const MAX_WEBHOOK_DESCRIPTION_LENGTH = 200

const WebhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES)

export const UrlSchema = z
  .string()
  .trim()
  .min(1, 'give the endpoint’s URL')
  .max(MAX_WEBHOOK_URL_LENGTH, `at most ${MAX_WEBHOOK_URL_LENGTH} characters`)
export const DescriptionSchema = z.string().trim().max(MAX_WEBHOOK_DESCRIPTION_LENGTH, `at most ${MAX_WEBHOOK_DESCRIPTION_LENGTH} characters`)
export const EventTypesSchema = z
  .array(WebhookEventTypeSchema)
  .min(1, 'choose at least one event type')
  .max(WEBHOOK_EVENT_TYPES.length)
  .refine((types) => new Set(types).size === types.length, 'name each event type once')

export const CreateWebhookEndpointInputSchema = z.strictObject({
  url: UrlSchema,
  /** What the endpoint is for, in the operator's words. */
  description: DescriptionSchema.optional(),
  eventTypes: EventTypesSchema,
  /**
   * The one tenant whose events it receives (docs/webhooks.md, docs/protocol.md §2.21); none or null: every tenant's.
   * A key bound to a tenant binds its endpoints to that tenant.
   */
  tenantId: TenantIdInputSchema.nullish(),
})
