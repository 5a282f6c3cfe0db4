-- Client instances an operator has blocked, by wallet address (docs/protocol.md §2.16).
CREATE TABLE "ClientBlock" (
    "client" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "blockedBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ClientBlock_pkey" PRIMARY KEY ("client")
);
