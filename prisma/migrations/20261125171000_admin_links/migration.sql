-- Administrators invited by a one-time link (docs/protocol.md §2.14): an administrator has no password until their
-- link is used, and the owners' links become everyone's (PasswordLink names its account as Session does).
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Admin" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "email" TEXT NOT NULL,
    "passwordHash" TEXT,
    "role" TEXT NOT NULL DEFAULT 'admin',
    "disabledAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO "new_Admin" ("id", "email", "passwordHash", "role", "disabledAt", "createdAt")
SELECT "id", "email", "passwordHash", "role", "disabledAt", "createdAt" FROM "Admin";
DROP TABLE "Admin";
ALTER TABLE "new_Admin" RENAME TO "Admin";
CREATE UNIQUE INDEX "Admin_email_key" ON "Admin"("email");

CREATE TABLE "PasswordLink" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "subjectKind" TEXT NOT NULL,
    "subjectId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME NOT NULL,
    "usedAt" DATETIME
);
INSERT INTO "PasswordLink" ("id", "subjectKind", "subjectId", "kind", "tokenHash", "createdAt", "expiresAt", "usedAt")
SELECT "id", 'owner', "ownerId", "kind", "tokenHash", "createdAt", "expiresAt", "usedAt" FROM "OwnerLink";
DROP TABLE "OwnerLink";
CREATE UNIQUE INDEX "PasswordLink_tokenHash_key" ON "PasswordLink"("tokenHash");
CREATE INDEX "PasswordLink_subjectKind_subjectId_kind_idx" ON "PasswordLink"("subjectKind", "subjectId", "kind");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
