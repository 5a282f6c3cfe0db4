-- CreateTable
CREATE TABLE "Grant" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "state" TEXT NOT NULL,
    "finalizedReason" TEXT,
    "client" TEXT NOT NULL,
    "clientName" TEXT,
    "continueId" TEXT NOT NULL,
    "continueTokenHash" TEXT NOT NULL,
    "continueNotBefore" DATETIME,
    "interactStart" TEXT,
    "finishMethod" TEXT,
    "finishUri" TEXT,
    "clientNonce" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "finalizedAt" DATETIME
);

-- CreateTable
CREATE TABLE "AccessItem" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "grantId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "actions" TEXT NOT NULL,
    "identifier" TEXT,
    "limits" TEXT,
    CONSTRAINT "AccessItem_grantId_fkey" FOREIGN KEY ("grantId") REFERENCES "Grant" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Interaction" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "nonce" TEXT NOT NULL,
    "grantId" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "interactRef" TEXT NOT NULL,
    "sessionHash" TEXT,
    "expiresAt" DATETIME NOT NULL,
    "decidedAt" DATETIME,
    "finishedAt" DATETIME,
    "refUsedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Interaction_grantId_fkey" FOREIGN KEY ("grantId") REFERENCES "Grant" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AccessToken" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "grantId" TEXT NOT NULL,
    "managementId" TEXT NOT NULL,
    "valueHash" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "expiresIn" INTEGER NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "rotatedAt" DATETIME,
    "revokedAt" DATETIME,
    "previousId" TEXT,
    CONSTRAINT "AccessToken_grantId_fkey" FOREIGN KEY ("grantId") REFERENCES "Grant" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "AccessToken_previousId_fkey" FOREIGN KEY ("previousId") REFERENCES "AccessToken" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "SignatureNonce" (
    "keyRef" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,

    PRIMARY KEY ("keyRef", "nonce")
);

-- CreateIndex
CREATE UNIQUE INDEX "Grant_continueId_key" ON "Grant"("continueId");

-- CreateIndex
CREATE INDEX "Grant_state_createdAt_idx" ON "Grant"("state", "createdAt");

-- CreateIndex
CREATE INDEX "Grant_client_idx" ON "Grant"("client");

-- CreateIndex
CREATE INDEX "AccessItem_grantId_position_idx" ON "AccessItem"("grantId", "position");

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
CREATE INDEX "AccessToken_expiresAt_idx" ON "AccessToken"("expiresAt");

-- CreateIndex
CREATE INDEX "SignatureNonce_expiresAt_idx" ON "SignatureNonce"("expiresAt");

