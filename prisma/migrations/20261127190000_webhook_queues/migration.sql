-- Webhook queues (docs/webhooks.md, "Delivery guarantees"): a delivery waiting behind an earlier pending one of the
-- same endpoint and order key is held, so the claim reads each queue's head and never the rows held behind it.
ALTER TABLE "WebhookDelivery" ADD COLUMN "held" INTEGER NOT NULL DEFAULT 0;

UPDATE "WebhookDelivery" SET "held" = 1
WHERE "state" = 'pending' AND EXISTS (
    SELECT 1 FROM "WebhookDelivery" p
    WHERE p."endpointId" = "WebhookDelivery"."endpointId" AND p."orderKey" = "WebhookDelivery"."orderKey" AND p."state" = 'pending'
      AND (p."createdAt" < "WebhookDelivery"."createdAt" OR (p."createdAt" = "WebhookDelivery"."createdAt" AND p."eventId" < "WebhookDelivery"."eventId")));

-- DropIndex
DROP INDEX "WebhookDelivery_state_nextAttemptAt_createdAt_eventId_idx";

-- DropIndex
DROP INDEX "WebhookDelivery_endpointId_orderKey_state_idx";

-- CreateIndex
CREATE INDEX "WebhookDelivery_state_held_nextAttemptAt_createdAt_eventId_idx" ON "WebhookDelivery"("state", "held", "nextAttemptAt", "createdAt", "eventId");

-- CreateIndex
CREATE INDEX "WebhookDelivery_endpointId_orderKey_state_createdAt_eventId_idx" ON "WebhookDelivery"("endpointId", "orderKey", "state", "createdAt", "eventId");
