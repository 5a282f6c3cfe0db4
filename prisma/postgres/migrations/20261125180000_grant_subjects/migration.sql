-- The subject identifiers of a grant's subject request (docs/protocol.md §2.1, RFC 9635 §2.2), in request order.
CREATE TABLE "GrantSubject" (
    "id" TEXT NOT NULL,
    "grantId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "format" TEXT NOT NULL,
    "subId" TEXT NOT NULL,

    CONSTRAINT "GrantSubject_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "GrantSubject_grantId_position_idx" ON "GrantSubject"("grantId", "position");

ALTER TABLE "GrantSubject" ADD CONSTRAINT "GrantSubject_grantId_fkey" FOREIGN KEY ("grantId") REFERENCES "Grant"("id") ON DELETE CASCADE ON UPDATE CASCADE;
