-- Administrators with roles, and disabling (docs/protocol.md §2.14). Existing administrators keep every right.
ALTER TABLE "Admin" ADD COLUMN "role" TEXT NOT NULL DEFAULT 'admin';
ALTER TABLE "Admin" ADD COLUMN "disabledAt" DATETIME;
