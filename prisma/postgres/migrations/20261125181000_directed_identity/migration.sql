-- A directed-identity client's public JWK, stored with its grant (docs/protocol.md §4.5).
ALTER TABLE "Grant" ADD COLUMN "clientJwk" TEXT;
