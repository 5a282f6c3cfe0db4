-- Interaction states share the lower case of every other state set: pending | approved | denied.
UPDATE "Interaction" SET "state" = lower("state");
