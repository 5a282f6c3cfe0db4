-- One-time links to set or reset an owner's password (docs/protocol.md §7).
CREATE TABLE "OwnerLink" (
    "id" TEXT NOT NULL,
    "ownerId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),

    CONSTRAINT "OwnerLink_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "OwnerLink_tokenHash_key" ON "OwnerLink"("tokenHash");

-- CreateIndex
CREATE INDEX "OwnerLink_ownerId_kind_idx" ON "OwnerLink"("ownerId", "kind");

-- AddForeignKey
ALTER TABLE "OwnerLink" ADD CONSTRAINT "OwnerLink_ownerId_fkey" FOREIGN KEY ("ownerId") REFERENCES "Owner"("id") ON DELETE CASCADE ON UPDATE CASCADE;
