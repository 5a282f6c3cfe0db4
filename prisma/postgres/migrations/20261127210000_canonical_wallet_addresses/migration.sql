-- One canonical wallet address (docs/protocol.md §6, "Wallet address identifiers"): access item identifiers,
-- owner wallet addresses and client wallet addresses stored before were kept as written. This rewrites the part
-- of the canonical form plain SQL can compute, on both databases alike: scheme and host in lower case, the default
-- port (:443 for https, :80 for http) dropped, no trailing slash. Values with a query, a fragment or credentials
-- (any "@") are left as they were, and dot segments and percent-encoding stay as written. docs/security.md says
-- what an operator does about those. (No semicolon in these comments: the PostgreSQL runner splits on them.)
--
-- "_CanonicalUrl" maps each stored value that changes to its new form, then is dropped.
CREATE TABLE "_CanonicalUrl" ("old" TEXT NOT NULL PRIMARY KEY, "new" TEXT NOT NULL);

INSERT INTO "_CanonicalUrl" ("old", "new")
SELECT "v", CASE WHEN lower(substr("v", 1, 8)) = 'https://' THEN 'https://' || CASE WHEN lower(substr(substr("v", 9), 1, strpos(substr("v", 9) || '/', '/') - 1)) LIKE '%:443' THEN substr(lower(substr(substr("v", 9), 1, strpos(substr("v", 9) || '/', '/') - 1)), 1, length(lower(substr(substr("v", 9), 1, strpos(substr("v", 9) || '/', '/') - 1))) - 4) ELSE lower(substr(substr("v", 9), 1, strpos(substr("v", 9) || '/', '/') - 1)) END || rtrim(substr(substr("v", 9), strpos(substr("v", 9) || '/', '/')), '/')
            ELSE 'http://' || CASE WHEN lower(substr(substr("v", 8), 1, strpos(substr("v", 8) || '/', '/') - 1)) LIKE '%:80' THEN substr(lower(substr(substr("v", 8), 1, strpos(substr("v", 8) || '/', '/') - 1)), 1, length(lower(substr(substr("v", 8), 1, strpos(substr("v", 8) || '/', '/') - 1))) - 3) ELSE lower(substr(substr("v", 8), 1, strpos(substr("v", 8) || '/', '/') - 1)) END || rtrim(substr(substr("v", 8), strpos(substr("v", 8) || '/', '/')), '/') END
FROM (
    SELECT "identifier" AS "v" FROM "AccessItem" WHERE "identifier" IS NOT NULL
    UNION SELECT "client" FROM "Grant"
    UNION SELECT "url" FROM "OwnerWalletAddress"
) "stored"
WHERE (lower(substr("v", 1, 8)) = 'https://' OR lower(substr("v", 1, 7)) = 'http://')
      AND "v" NOT LIKE '%?%' AND "v" NOT LIKE '%#%' AND "v" NOT LIKE '%@%';

DELETE FROM "_CanonicalUrl" WHERE "old" = "new";

UPDATE "AccessItem" SET "identifier" = (SELECT c."new" FROM "_CanonicalUrl" c WHERE c."old" = "AccessItem"."identifier")
WHERE "identifier" IN (SELECT "old" FROM "_CanonicalUrl");

UPDATE "Grant" SET "client" = (SELECT c."new" FROM "_CanonicalUrl" c WHERE c."old" = "Grant"."client")
WHERE "client" IN (SELECT "old" FROM "_CanonicalUrl");

-- An owner wallet address is rewritten only when no other stored wallet address has, or would get, the same
-- form: two addresses that become one are both left as they were (the migration never fails on them and never
-- picks an owner). The console shows both, and the operator removes the one that should go.
UPDATE "OwnerWalletAddress" SET "url" = (SELECT c."new" FROM "_CanonicalUrl" c WHERE c."old" = "OwnerWalletAddress"."url")
WHERE "url" IN (
    SELECT c."old" FROM "_CanonicalUrl" c
    WHERE NOT EXISTS (
        SELECT 1 FROM "OwnerWalletAddress" o
        WHERE o."url" <> c."old"
          AND (o."url" = c."new" OR EXISTS (SELECT 1 FROM "_CanonicalUrl" d WHERE d."old" = o."url" AND d."new" = c."new"))
    )
);

DROP TABLE "_CanonicalUrl";
