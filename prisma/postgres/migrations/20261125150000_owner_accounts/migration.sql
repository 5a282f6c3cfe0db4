-- Owners managed from the admin console: a status (active | disabled), the last sign-in, the last change, a
-- password that may be absent until an invitation link is used, and indexes for the owners list and search.
ALTER TABLE "Owner" ALTER COLUMN "passwordHash" DROP NOT NULL,
ADD COLUMN "nameKey" TEXT NOT NULL DEFAULT '',
ADD COLUMN "status" TEXT NOT NULL DEFAULT 'active',
ADD COLUMN "lastSignInAt" TIMESTAMP(3),
ADD COLUMN "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

UPDATE "Owner" SET "nameKey" = lower("name"), "updatedAt" = "createdAt";

-- CreateIndex
CREATE INDEX "Owner_createdAt_id_idx" ON "Owner"("createdAt", "id");

-- CreateIndex
CREATE INDEX "Owner_nameKey_id_idx" ON "Owner"("nameKey", "id");

-- CreateIndex
CREATE INDEX "AccessItem_identifier_idx" ON "AccessItem"("identifier");

-- CreateIndex
CREATE INDEX "AuditLog_target_createdAt_idx" ON "AuditLog"("target", "createdAt");
