-- Owners belong to a tenant (docs/protocol.md §2.21): the built-in consent screen of a tenant signs in its owners
-- only, and /account shows that tenant's grants. Null: the operator tenant's or, without one, the implicit tenant's,
-- as every owner from before this column.
ALTER TABLE "Owner" ADD COLUMN "tenantId" TEXT;

-- CreateIndex
CREATE INDEX "Owner_tenantId_createdAt_id_idx" ON "Owner"("tenantId", "createdAt", "id");

-- An API key bound to one tenant sees and changes only that tenant's grants, owners and clients. Null: unbound, as
-- every key from before this column.
ALTER TABLE "ApiKey" ADD COLUMN "tenantId" TEXT;

-- A webhook endpoint bound to one tenant receives only that tenant's events. Null: every tenant's.
ALTER TABLE "WebhookEndpoint" ADD COLUMN "tenantId" TEXT;
