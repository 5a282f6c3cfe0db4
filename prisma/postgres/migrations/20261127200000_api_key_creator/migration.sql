-- API keys answer to their creator (docs/security.md, "API keys answer to their creator"): a key records the id of
-- the administrator who created it, and each call acts at most with that administrator's current role.
ALTER TABLE "ApiKey" ADD COLUMN "createdById" TEXT;

-- A key from before this column names its creator by the email they had ("createdBy"), and an administrator's email
-- is unique and never changes. A key whose email matches no administrator keeps a null creator and is refused.
UPDATE "ApiKey" SET "createdById" = (SELECT a."id" FROM "Admin" a WHERE a."email" = "ApiKey"."createdBy");

-- CreateIndex
CREATE INDEX "ApiKey_createdById_idx" ON "ApiKey"("createdById");
