-- Two-step sign-in for administrators (docs/protocol.md §2.17): the TOTP secret, the last accepted time step,
-- an enrolment awaiting its first code, recovery codes (hashed) and pending sign-ins (hashed, short-lived).
ALTER TABLE "Admin" ADD COLUMN "totpSecret" TEXT;
ALTER TABLE "Admin" ADD COLUMN "totpEnabledAt" TIMESTAMP(3);
ALTER TABLE "Admin" ADD COLUMN "totpLastStep" INTEGER;
ALTER TABLE "Admin" ADD COLUMN "totpPendingSecret" TEXT;
ALTER TABLE "Admin" ADD COLUMN "totpPendingAt" TIMESTAMP(3);

CREATE TABLE "AdminRecoveryCode" (
    "id" TEXT NOT NULL,
    "adminId" TEXT NOT NULL,
    "codeHash" TEXT NOT NULL,
    "usedAt" TIMESTAMP(3),

    CONSTRAINT "AdminRecoveryCode_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "AdminRecoveryCode_adminId_idx" ON "AdminRecoveryCode"("adminId");

CREATE TABLE "AdminSignInChallenge" (
    "id" TEXT NOT NULL,
    "adminId" TEXT NOT NULL,
    "failedAttempts" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AdminSignInChallenge_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "AdminSignInChallenge_expiresAt_idx" ON "AdminSignInChallenge"("expiresAt");

-- AddForeignKey
ALTER TABLE "AdminRecoveryCode" ADD CONSTRAINT "AdminRecoveryCode_adminId_fkey" FOREIGN KEY ("adminId") REFERENCES "Admin"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AdminSignInChallenge" ADD CONSTRAINT "AdminSignInChallenge_adminId_fkey" FOREIGN KEY ("adminId") REFERENCES "Admin"("id") ON DELETE CASCADE ON UPDATE CASCADE;
