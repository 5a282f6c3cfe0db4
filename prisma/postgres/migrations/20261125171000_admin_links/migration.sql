-- Administrators invited by a one-time link (docs/protocol.md §2.14): an administrator has no password until their
-- link is used, and the owners' links become everyone's (PasswordLink names its account as Session does).
ALTER TABLE "Admin" ALTER COLUMN "passwordHash" DROP NOT NULL;

-- CreateTable
CREATE TABLE "PasswordLink" (
    "id" TEXT NOT NULL,
    "subjectKind" TEXT NOT NULL,
    "subjectId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),

    CONSTRAINT "PasswordLink_pkey" PRIMARY KEY ("id")
);

INSERT INTO "PasswordLink" ("id", "subjectKind", "subjectId", "kind", "tokenHash", "createdAt", "expiresAt", "usedAt")
SELECT "id", 'owner', "ownerId", "kind", "tokenHash", "createdAt", "expiresAt", "usedAt" FROM "OwnerLink";

-- DropTable
DROP TABLE "OwnerLink";

-- CreateIndex
CREATE UNIQUE INDEX "PasswordLink_tokenHash_key" ON "PasswordLink"("tokenHash");

-- CreateIndex
CREATE INDEX "PasswordLink_subjectKind_subjectId_kind_idx" ON "PasswordLink"("subjectKind", "subjectId", "kind");
