import type { PrismaClient } from './generated/client'

// The console's read models stay on Prisma, where its filters, keyset pages and group-bys read more clearly than SQL
// (docs/protocol.md §9). Only the read methods are reachable: every write, and every transaction, goes through the
// SQL runner (`Deps.sql`), so the two kinds of transaction cannot be mixed (on SQLite they would wait for each
// other forever).

type ReadMethod = 'findMany' | 'findFirst' | 'findFirstOrThrow' | 'findUnique' | 'findUniqueOrThrow' | 'count' | 'groupBy' | 'aggregate'
type Model = 'grant' | 'accessItem' | 'accessToken' | 'interaction' | 'owner' | 'ownerWalletAddress' | 'admin' | 'session' | 'auditLog'

/** Read-only Prisma models for the console's read models: no create, update, delete, raw SQL or transaction. */
export type ReadModels = { readonly [M in Model]: Pick<PrismaClient[M], ReadMethod & keyof PrismaClient[M]> }
