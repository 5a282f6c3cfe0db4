-- The audit log's filters by actor and by action, exact or by prefix, newest first (docs/protocol.md §2.15).
-- hand edit: "actor", "action" and "target" are COLLATE "C", so a prefix range (audit.repo.ts) compares code
-- points as SQLite does, whatever the database's default collation, and the target index is rebuilt with it.
ALTER TABLE "AuditLog" ALTER COLUMN "actor" SET DATA TYPE TEXT COLLATE "C";
ALTER TABLE "AuditLog" ALTER COLUMN "action" SET DATA TYPE TEXT COLLATE "C";
ALTER TABLE "AuditLog" ALTER COLUMN "target" SET DATA TYPE TEXT COLLATE "C";
CREATE INDEX "AuditLog_actor_createdAt_idx" ON "AuditLog"("actor", "createdAt");
CREATE INDEX "AuditLog_action_createdAt_idx" ON "AuditLog"("action", "createdAt");
