-- One-time links to set or reset an owner's password (docs/protocol.md §7).
CREATE TABLE "OwnerLink" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "ownerId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME NOT NULL,
    "usedAt" DATETIME,
    CONSTRAINT "OwnerLink_ownerId_fkey" FOREIGN KEY ("ownerId") REFERENCES "Owner" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "OwnerLink_tokenHash_key" ON "OwnerLink"("tokenHash");

-- CreateIndex
CREATE INDEX "OwnerLink_ownerId_kind_idx" ON "OwnerLink"("ownerId", "kind");
