-- Written by `prisma migrate diff --from-empty --to-schema-datamodel prisma/postgres/schema.prisma --script`, with one
-- hand edit: "Grant"."client" is COLLATE "C", so the console's client-prefix range (console.repo.ts) compares
-- code points as on SQLite, whatever the database's default collation (the datamodel cannot say this).
-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "Grant" (
    "id" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "finalizedReason" TEXT,
    "client" TEXT COLLATE "C" NOT NULL,
    "clientName" TEXT,
    "continueId" TEXT NOT NULL,
    "continueTokenHash" TEXT NOT NULL,
    "continueNotBefore" TIMESTAMP(3),
    "interactStart" TEXT,
    "finishMethod" TEXT,
    "finishUri" TEXT,
    "clientNonce" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "finalizedAt" TIMESTAMP(3),

    CONSTRAINT "Grant_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AccessItem" (
    "id" TEXT NOT NULL,
    "grantId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "actions" TEXT NOT NULL,
    "identifier" TEXT,
    "limits" TEXT,

    CONSTRAINT "AccessItem_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Interaction" (
    "id" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "grantId" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "interactRef" TEXT NOT NULL,
    "sessionHash" TEXT,
    "ownerId" TEXT,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "decidedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "refUsedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Interaction_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AccessToken" (
    "id" TEXT NOT NULL,
    "grantId" TEXT NOT NULL,
    "managementId" TEXT NOT NULL,
    "valueHash" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "expiresIn" INTEGER NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "rotatedAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),
    "previousId" TEXT,

    CONSTRAINT "AccessToken_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SignatureNonce" (
    "keyRef" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SignatureNonce_pkey" PRIMARY KEY ("keyRef","nonce")
);

-- CreateTable
CREATE TABLE "Owner" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Owner_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OwnerWalletAddress" (
    "url" TEXT NOT NULL,
    "ownerId" TEXT NOT NULL,

    CONSTRAINT "OwnerWalletAddress_pkey" PRIMARY KEY ("url")
);

-- CreateTable
CREATE TABLE "Admin" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Admin_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Session" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "subjectId" TEXT NOT NULL,
    "csrfHash" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AuditLog" (
    "id" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "detail" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AuditLog_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RateLimit" (
    "key" TEXT NOT NULL,
    "windowStart" TIMESTAMP(3) NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "RateLimit_pkey" PRIMARY KEY ("key","windowStart")
);

-- CreateIndex
CREATE UNIQUE INDEX "Grant_continueId_key" ON "Grant"("continueId");

-- CreateIndex
CREATE INDEX "Grant_state_createdAt_idx" ON "Grant"("state", "createdAt");

-- CreateIndex
CREATE INDEX "Grant_createdAt_id_idx" ON "Grant"("createdAt", "id");

-- CreateIndex
CREATE INDEX "Grant_updatedAt_id_idx" ON "Grant"("updatedAt", "id");

-- CreateIndex
CREATE INDEX "Grant_state_finalizedReason_createdAt_id_idx" ON "Grant"("state", "finalizedReason", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Grant_client_createdAt_id_idx" ON "Grant"("client", "createdAt", "id");

-- CreateIndex
CREATE INDEX "AccessItem_grantId_position_idx" ON "AccessItem"("grantId", "position");

-- CreateIndex
CREATE INDEX "AccessItem_type_grantId_idx" ON "AccessItem"("type", "grantId");

-- CreateIndex
CREATE UNIQUE INDEX "Interaction_grantId_key" ON "Interaction"("grantId");

-- CreateIndex
CREATE UNIQUE INDEX "Interaction_interactRef_key" ON "Interaction"("interactRef");

-- CreateIndex
CREATE UNIQUE INDEX "AccessToken_managementId_key" ON "AccessToken"("managementId");

-- CreateIndex
CREATE UNIQUE INDEX "AccessToken_valueHash_key" ON "AccessToken"("valueHash");

-- CreateIndex
CREATE UNIQUE INDEX "AccessToken_previousId_key" ON "AccessToken"("previousId");

-- CreateIndex
CREATE INDEX "AccessToken_grantId_idx" ON "AccessToken"("grantId");

-- CreateIndex
CREATE INDEX "AccessToken_expiresAt_state_idx" ON "AccessToken"("expiresAt", "state");

-- CreateIndex
CREATE INDEX "AccessToken_createdAt_idx" ON "AccessToken"("createdAt");

-- CreateIndex
CREATE INDEX "AccessToken_rotatedAt_idx" ON "AccessToken"("rotatedAt");

-- CreateIndex
CREATE INDEX "AccessToken_revokedAt_idx" ON "AccessToken"("revokedAt");

-- CreateIndex
CREATE INDEX "SignatureNonce_expiresAt_idx" ON "SignatureNonce"("expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "Owner_email_key" ON "Owner"("email");

-- CreateIndex
CREATE INDEX "OwnerWalletAddress_ownerId_idx" ON "OwnerWalletAddress"("ownerId");

-- CreateIndex
CREATE UNIQUE INDEX "Admin_email_key" ON "Admin"("email");

-- CreateIndex
CREATE INDEX "Session_kind_subjectId_idx" ON "Session"("kind", "subjectId");

-- CreateIndex
CREATE INDEX "Session_expiresAt_idx" ON "Session"("expiresAt");

-- CreateIndex
CREATE INDEX "AuditLog_createdAt_idx" ON "AuditLog"("createdAt");

-- CreateIndex
CREATE INDEX "RateLimit_windowStart_idx" ON "RateLimit"("windowStart");

-- AddForeignKey
ALTER TABLE "AccessItem" ADD CONSTRAINT "AccessItem_grantId_fkey" FOREIGN KEY ("grantId") REFERENCES "Grant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Interaction" ADD CONSTRAINT "Interaction_grantId_fkey" FOREIGN KEY ("grantId") REFERENCES "Grant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AccessToken" ADD CONSTRAINT "AccessToken_grantId_fkey" FOREIGN KEY ("grantId") REFERENCES "Grant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AccessToken" ADD CONSTRAINT "AccessToken_previousId_fkey" FOREIGN KEY ("previousId") REFERENCES "AccessToken"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OwnerWalletAddress" ADD CONSTRAINT "OwnerWalletAddress_ownerId_fkey" FOREIGN KEY ("ownerId") REFERENCES "Owner"("id") ON DELETE CASCADE ON UPDATE CASCADE;

