import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3'
import type { Database } from 'better-sqlite3'
import type { Gate } from './sql'

type Adapter = Awaited<ReturnType<PrismaBetterSQLite3['connect']>>
type Transaction = Awaited<ReturnType<Adapter['startTransaction']>>
type Query = Parameters<Adapter['queryRaw']>[0]

const statement = (sql: string): Query => ({ sql, args: [], argTypes: [] })

/**
 * Prisma's better-sqlite3 adapter with its one connection put behind the store's gate (sql.ts `Gate`).
 *
 * The adapter locks only between its own interactive transactions; a plain query from another request ran on the
 * same connection, inside whatever transaction was open. Here a transaction holds the gate from BEGIN to COMMIT or
 * ROLLBACK, and every query outside a transaction waits for the gate, like the hot paths' statements (SqliteSql).
 * Transactions begin IMMEDIATE (the adapter's own BEGIN is deferred), so worker processes sharing the file wait for
 * the write lock instead of failing on upgrade. `onConnect` receives the connection, which the hot paths share.
 */
export class GatedSqliteAdapterFactory {
  readonly provider = 'sqlite'
  readonly adapterName: string
  readonly #inner: PrismaBetterSQLite3

  constructor(
    config: ConstructorParameters<typeof PrismaBetterSQLite3>[0],
    private readonly gate: Gate,
    private readonly onConnect: (connection: Database) => void,
  ) {
    this.#inner = new PrismaBetterSQLite3(config)
    this.adapterName = this.#inner.adapterName
  }

  async connect(): Promise<Adapter> {
    const inner = await this.#inner.connect()
    this.onConnect((inner as unknown as { client: Database }).client)
    return gatedAdapter(inner, this.gate)
  }
}

function gatedAdapter(inner: Adapter, gate: Gate): Adapter {
  return {
    provider: inner.provider,
    adapterName: inner.adapterName,
    queryRaw: (query) => gate.hold(() => inner.queryRaw(query)),
    executeRaw: (query) => gate.hold(() => inner.executeRaw(query)),
    executeScript: (script) => gate.hold(() => inner.executeScript(script)),
    getConnectionInfo: inner.getConnectionInfo?.bind(inner),
    dispose: () => inner.dispose(),
    async startTransaction(isolationLevel): Promise<Transaction> {
      if (isolationLevel && isolationLevel !== 'SERIALIZABLE') {
        // The adapter's own refusal (SQLite transactions are serializable), raised as Prisma expects it.
        return inner.startTransaction(isolationLevel)
      }
      await gate.acquire()
      try {
        await inner.executeRaw(statement('BEGIN IMMEDIATE'))
      } catch (e) {
        gate.release()
        throw e
      }
      let open = true
      const end = () => {
        if (open) {
          open = false
          gate.release()
        }
        return Promise.resolve()
      }
      // Prisma sends COMMIT or ROLLBACK through executeRaw, then calls commit() or rollback().
      return {
        provider: inner.provider,
        adapterName: inner.adapterName,
        options: { usePhantomQuery: false },
        queryRaw: (query) => inner.queryRaw(query),
        executeRaw: (query) => inner.executeRaw(query),
        commit: end,
        rollback: end,
      }
    },
  }
}
