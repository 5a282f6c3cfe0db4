-- DropIndex
DROP INDEX "AccessToken_expiresAt_idx";

-- DropIndex
DROP INDEX "Grant_client_idx";

-- CreateIndex
CREATE INDEX "AccessItem_type_grantId_idx" ON "AccessItem"("type", "grantId");

-- CreateIndex
CREATE INDEX "AccessToken_expiresAt_state_idx" ON "AccessToken"("expiresAt", "state");

-- CreateIndex
CREATE INDEX "AccessToken_createdAt_idx" ON "AccessToken"("createdAt");

-- CreateIndex
CREATE INDEX "AccessToken_rotatedAt_idx" ON "AccessToken"("rotatedAt");

-- CreateIndex
CREATE INDEX "AccessToken_revokedAt_idx" ON "AccessToken"("revokedAt");

-- CreateIndex
CREATE INDEX "Grant_createdAt_id_idx" ON "Grant"("createdAt", "id");

-- CreateIndex
CREATE INDEX "Grant_updatedAt_id_idx" ON "Grant"("updatedAt", "id");

-- CreateIndex
CREATE INDEX "Grant_state_finalizedReason_createdAt_id_idx" ON "Grant"("state", "finalizedReason", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Grant_client_createdAt_id_idx" ON "Grant"("client", "createdAt", "id");

