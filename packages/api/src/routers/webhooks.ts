import * as domain from '@gnap/domain/operator'
import { admin, asItems, router, viewer } from '../trpc'
import {
  NoInputSchema,
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
  list: viewer.query(
    ['GET', '/webhooks', 'Webhook endpoints with their event types and delivery counts'],
    NoInputSchema,
    WebhookEndpointListSchema,
    asItems(domain.listWebhookEndpoints),
  ),

  /** One endpoint. NOT_FOUND. */
  byId: viewer.query(
    ['GET', '/webhooks/{id}', 'One webhook endpoint'],
    domain.WebhookEndpointIdInputSchema,
    WebhookEndpointSchema,
    domain.getWebhookEndpoint,
  ),

  /**
   * Adds an endpoint, enabled, with a new signing secret that the answer carries once. BAD_REQUEST for a URL the
   * rules refuse (https in production, a public address or WEBHOOK_ALLOWED_NETWORKS); CONFLICT past 50 endpoints.
   */
  create: admin.mutation(
    ['POST', '/webhooks', 'Adds a webhook endpoint; the answer carries its signing secret, once'],
    domain.CreateWebhookEndpointInputSchema,
    WebhookEndpointWithSecretSchema,
    domain.createWebhookEndpoint,
  ),

  /** Changes the URL, description or event types given. NOT_FOUND; BAD_REQUEST for a URL the rules refuse. */
  update: admin.mutation(
    ['POST', '/webhooks/{id}/update', 'Changes an endpoint’s URL, description or event types'],
    domain.UpdateWebhookEndpointInputSchema,
    WebhookEndpointSchema,
    domain.updateWebhookEndpoint,
  ),

  /** Enables or disables an endpoint (a disabled one's deliveries wait). NOT_FOUND. */
  setEnabled: admin.mutation(
    ['POST', '/webhooks/{id}/enabled', 'Enables or disables an endpoint'],
    domain.SetWebhookEndpointEnabledInputSchema,
    WebhookEndpointSchema,
    domain.setWebhookEndpointEnabled,
  ),

  /** A new signing secret, carried once by the answer; the old one still signs for `overlapHours` (0..168, 24). NOT_FOUND. */
  rotateSecret: admin.mutation(
    ['POST', '/webhooks/{id}/rotate-secret', 'A new signing secret, carried once by the answer; the old one signs too for the overlap'],
    domain.RotateWebhookSecretInputSchema,
    WebhookEndpointWithSecretSchema,
    domain.rotateWebhookSecret,
  ),

  /** Sends a `webhook.test` event to this endpoint only. NOT_FOUND; CONFLICT while it is disabled. */
  sendTest: admin.mutation(
    ['POST', '/webhooks/{id}/test', 'Sends a webhook.test event to the endpoint'],
    domain.WebhookEndpointIdInputSchema,
    WebhookTestSentSchema,
    domain.sendTestEvent,
  ),

  /** Deletes an endpoint with its deliveries. NOT_FOUND. */
  delete: admin.mutation(
    ['POST', '/webhooks/{id}/delete', 'Deletes an endpoint with its deliveries'],
    domain.WebhookEndpointIdInputSchema,
    WebhookEndpointDeletedSchema,
    domain.deleteWebhookEndpoint,
  ),

  /** An endpoint's delivery log, newest event first, optionally of one state, in keyset pages. NOT_FOUND; BAD_REQUEST for a stale cursor. */
  deliveries: viewer.query(
    ['POST', '/webhooks/{endpointId}/deliveries/search', 'An endpoint’s delivery log, newest first, in keyset pages'],
    domain.ListWebhookDeliveriesInputSchema,
    WebhookDeliveryPageSchema,
    domain.listWebhookDeliveries,
  ),

  /** Sends a failed delivery again, due now with a new retry window. NOT_FOUND; CONFLICT when it is not failed. */
  replay: admin.mutation(
    ['POST', '/webhook-deliveries/{deliveryId}/replay', 'Sends a failed delivery again'],
    domain.ReplayWebhookDeliveryInputSchema,
    WebhookDeliverySchema,
    domain.replayDelivery,
  ),
})
