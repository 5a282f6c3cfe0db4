-- Two-step sign-in for administrators (docs/protocol.md §2.17): the TOTP secret, the last accepted time step,
-- an enrolment awaiting its first code, recovery codes (hashed) and pending sign-ins (hashed, short-lived).
ALTER TABLE "Admin" ADD COLUMN "totpSecret" TEXT;
ALTER TABLE "Admin" ADD COLUMN "totpEnabledAt" DATETIME;
ALTER TABLE "Admin" ADD COLUMN "totpLastStep" INTEGER;
ALTER TABLE "Admin" ADD COLUMN "totpPendingSecret" TEXT;
ALTER TABLE "Admin" ADD COLUMN "totpPendingAt" DATETIME;

CREATE TABLE "AdminRecoveryCode" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "adminId" TEXT NOT NULL,
    "codeHash" TEXT NOT NULL,
    "usedAt" DATETIME,
    CONSTRAINT "AdminRecoveryCode_adminId_fkey" FOREIGN KEY ("adminId") REFERENCES "Admin" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "AdminRecoveryCode_adminId_idx" ON "AdminRecoveryCode"("adminId");

CREATE TABLE "AdminSignInChallenge" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "adminId" TEXT NOT NULL,
    "failedAttempts" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    CONSTRAINT "AdminSignInChallenge_adminId_fkey" FOREIGN KEY ("adminId") REFERENCES "Admin" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "AdminSignInChallenge_expiresAt_idx" ON "AdminSignInChallenge"("expiresAt");
