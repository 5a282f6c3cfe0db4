-- Owners managed from the admin console: a status (active | disabled), the last sign-in, the last change, a
-- password that may be absent until an invitation link is used, and indexes for the owners list and search.
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Owner" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "nameKey" TEXT NOT NULL DEFAULT '',
    "passwordHash" TEXT,
    "status" TEXT NOT NULL DEFAULT 'active',
    "lastSignInAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO "new_Owner" ("id", "email", "name", "nameKey", "passwordHash", "createdAt", "updatedAt")
SELECT "id", "email", "name", lower("name"), "passwordHash", "createdAt", "createdAt" FROM "Owner";
DROP TABLE "Owner";
ALTER TABLE "new_Owner" RENAME TO "Owner";
CREATE UNIQUE INDEX "Owner_email_key" ON "Owner"("email");
CREATE INDEX "Owner_createdAt_id_idx" ON "Owner"("createdAt", "id");
CREATE INDEX "Owner_nameKey_id_idx" ON "Owner"("nameKey", "id");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "AccessItem_identifier_idx" ON "AccessItem"("identifier");

-- CreateIndex
CREATE INDEX "AuditLog_target_createdAt_idx" ON "AuditLog"("target", "createdAt");
