-- Audit entries name the tenant whose owner, grant or webhook endpoint they are about (docs/protocol.md §2.15,
-- §2.21): a key bound to a tenant reads only its tenant's entries. Null: no one tenant's (administrators, API keys,
-- clients) or the operator tenant's, as every entry from before this column.
ALTER TABLE "AuditLog" ADD COLUMN "tenantId" TEXT;

-- CreateIndex
CREATE INDEX "AuditLog_tenantId_createdAt_idx" ON "AuditLog"("tenantId", "createdAt");
