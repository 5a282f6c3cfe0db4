import {
  createWebhookEndpoint,
  CreateWebhookEndpointInputSchema,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveries,
  ListWebhookDeliveriesInputSchema,
  listWebhookEndpoints,
  replayDelivery,
  ReplayWebhookDeliveryInputSchema,
  rotateWebhookSecret,
  RotateWebhookSecretInputSchema,
  sendTestEvent,
  setWebhookEndpointEnabled,
  SetWebhookEndpointEnabledInputSchema,
  updateWebhookEndpoint,
  UpdateWebhookEndpointInputSchema,
  WebhookEndpointIdInputSchema,
} from '@gnap/domain/operator'
import { z } from 'zod'
import { adminOnlyProcedure, router, viewerProcedure } from '../trpc'
import {
  WebhookDeliveryPageSchema,
  WebhookDeliverySchema,
  WebhookEndpointDeletedSchema,
  WebhookEndpointListSchema,
  WebhookEndpointSchema,
  WebhookEndpointWithSecretSchema,
  WebhookTestSentSchema,
} from '../schemas'

// Webhook endpoints and their delivery log (docs/webhooks.md): every role reads them; `admin` (people and admin API
// keys) manages them. The signing secret is in the answers of create and rotateSecret only.

export const webhooksRouter = router({
  /** Every endpoint with its event types and delivery counts by state, oldest first. */
  list: viewerProcedure
    .meta({ rest: { method: 'GET', path: '/webhooks', summary: 'Webhook endpoints with their event types and delivery counts' } })
    .input(z.strictObject({}).optional())
    .output(WebhookEndpointListSchema)
    .query(async ({ ctx }) => ({ items: await listWebhookEndpoints(ctx.deps) })),

  /** One endpoint. NOT_FOUND. */
  byId: viewerProcedure
    .meta({ rest: { method: 'GET', path: '/webhooks/{id}', summary: 'One webhook endpoint' } })
    .input(WebhookEndpointIdInputSchema)
    .output(WebhookEndpointSchema)
    .query(({ ctx, input }) => getWebhookEndpoint(ctx.deps, input)),

  /**
   * Adds an endpoint, enabled, with a new signing secret that the answer carries once. BAD_REQUEST for a URL the
   * rules refuse (https in production, a public address or WEBHOOK_ALLOWED_NETWORKS); CONFLICT past 50 endpoints.
   */
  create: adminOnlyProcedure
    .meta({ rest: { method: 'POST', path: '/webhooks', summary: 'Adds a webhook endpoint; the answer carries its signing secret, once' } })
    .input(CreateWebhookEndpointInputSchema)
    .output(WebhookEndpointWithSecretSchema)
    .mutation(({ ctx, input }) => createWebhookEndpoint(ctx.deps, { ...input, actor: ctx.actor })),

  /** Changes the URL, description or event types given. NOT_FOUND; BAD_REQUEST for a URL the rules refuse. */
  update: adminOnlyProcedure
    .meta({ rest: { method: 'POST', path: '/webhooks/{id}/update', summary: 'Changes an endpoint’s URL, description or event types' } })
    .input(UpdateWebhookEndpointInputSchema)
    .output(WebhookEndpointSchema)
    .mutation(({ ctx, input }) => updateWebhookEndpoint(ctx.deps, { ...input, actor: ctx.actor })),

  /** Enables or disables an endpoint (a disabled one's deliveries wait). NOT_FOUND. */
  setEnabled: adminOnlyProcedure
    .meta({ rest: { method: 'POST', path: '/webhooks/{id}/enabled', summary: 'Enables or disables an endpoint' } })
    .input(SetWebhookEndpointEnabledInputSchema)
    .output(WebhookEndpointSchema)
    .mutation(({ ctx, input }) => setWebhookEndpointEnabled(ctx.deps, { ...input, actor: ctx.actor })),

  /** A new signing secret, carried once by the answer; the old one still signs for `overlapHours` (0..168, 24). NOT_FOUND. */
  rotateSecret: adminOnlyProcedure
    .meta({
      rest: {
        method: 'POST',
        path: '/webhooks/{id}/rotate-secret',
        summary: 'A new signing secret, carried once by the answer; the old one signs too for the overlap',
      },
    })
    .input(RotateWebhookSecretInputSchema)
    .output(WebhookEndpointWithSecretSchema)
    .mutation(({ ctx, input }) => rotateWebhookSecret(ctx.deps, { ...input, actor: ctx.actor })),

  /** Sends a `webhook.test` event to this endpoint only. NOT_FOUND; CONFLICT while it is disabled. */
  sendTest: adminOnlyProcedure
    .meta({ rest: { method: 'POST', path: '/webhooks/{id}/test', summary: 'Sends a webhook.test event to the endpoint' } })
    .input(WebhookEndpointIdInputSchema)
    .output(WebhookTestSentSchema)
    .mutation(({ ctx, input }) => sendTestEvent(ctx.deps, { id: input.id, actor: ctx.actor })),

  /** Deletes an endpoint with its deliveries. NOT_FOUND. */
  delete: adminOnlyProcedure
    .meta({ rest: { method: 'POST', path: '/webhooks/{id}/delete', summary: 'Deletes an endpoint with its deliveries' } })
    .input(WebhookEndpointIdInputSchema)
    .output(WebhookEndpointDeletedSchema)
    .mutation(({ ctx, input }) => deleteWebhookEndpoint(ctx.deps, { id: input.id, actor: ctx.actor })),

  /** An endpoint's delivery log, newest event first, optionally of one state, in keyset pages. NOT_FOUND; BAD_REQUEST for a stale cursor. */
  deliveries: viewerProcedure
    .meta({
      rest: {
        method: 'POST',
        path: '/webhooks/{endpointId}/deliveries/search',
        summary: 'An endpoint’s delivery log, newest first, in keyset pages',
      },
    })
    .input(ListWebhookDeliveriesInputSchema)
    .output(WebhookDeliveryPageSchema)
    .query(({ ctx, input }) => listWebhookDeliveries(ctx.deps, input)),

  /** Sends a failed delivery again, due now with a new retry window. NOT_FOUND; CONFLICT when it is not failed. */
  replay: adminOnlyProcedure
    .meta({ rest: { method: 'POST', path: '/webhook-deliveries/{deliveryId}/replay', summary: 'Sends a failed delivery again' } })
    .input(ReplayWebhookDeliveryInputSchema)
    .output(WebhookDeliverySchema)
    .mutation(({ ctx, input }) => replayDelivery(ctx.deps, { deliveryId: input.deliveryId, actor: ctx.actor })),
})
