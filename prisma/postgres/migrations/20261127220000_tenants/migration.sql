-- Tenants (docs/protocol.md §2.21): the operator tenant, created at start from OPERATOR_TENANT_ID, and those a Rafiki
-- backend creates through the service API. A deleted tenant keeps its row with deletedAt set, and its id is never reused.
CREATE TABLE "Tenant" (
    "id" TEXT NOT NULL,
    "idpConsentUrl" TEXT,
    "idpSecretHash" TEXT,
    "apiSecret" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deletedAt" TIMESTAMP(3),

    CONSTRAINT "Tenant_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Tenant_idpSecretHash_idx" ON "Tenant"("idpSecretHash");

-- The tenant whose grant endpoint (POST /{tenantId}) took the request. Null for POST /, the operator tenant's or,
-- without one, the implicit tenant's: every grant from before this column is one of those.
ALTER TABLE "Grant" ADD COLUMN "tenantId" TEXT;

-- CreateIndex
CREATE INDEX "Grant_tenantId_createdAt_id_idx" ON "Grant"("tenantId", "createdAt", "id");
