-- Client instances an operator has blocked, by wallet address (docs/protocol.md §2.16).
CREATE TABLE "ClientBlock" (
    "client" TEXT NOT NULL PRIMARY KEY,
    "reason" TEXT NOT NULL,
    "blockedBy" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
