-- The audit log's filters by actor and by action, exact or by prefix, newest first (docs/protocol.md §2.15).
CREATE INDEX "AuditLog_actor_createdAt_idx" ON "AuditLog"("actor", "createdAt");
CREATE INDEX "AuditLog_action_createdAt_idx" ON "AuditLog"("action", "createdAt");
