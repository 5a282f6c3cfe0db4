// The files of a local start that hold secrets are for the server's own user only (docs/security.md, "Files"):
// data/ (0700), the SQLite database and its -wal and -shm (0600), data/secrets.json and data/demo-client.json
// (0600). Files are created with the modes the process's umask leaves (0644 under the usual 022), and a file that
// already exists keeps its mode whatever `writeFileSync`'s `mode` says, so the modes are set here, explicitly, on
// every start before anything is served.
import fs from 'node:fs'
import path from 'node:path'

const PRIVATE_DIR = 0o700
const PRIVATE_FILE = 0o600

/** The SQLite file a `file:` DATABASE_URL names (a relative one from `cwd`, as prisma and the server read it); null for PostgreSQL. */
export function sqliteFile(databaseUrl: string, cwd: string): string | null {
  if (!databaseUrl.startsWith('file:')) return null
  const file = databaseUrl.slice('file:'.length).split('?')[0] ?? ''
  return file === '' ? null : path.resolve(cwd, file)
}

/**
 * Creates the SQLite file `dbFile` (when given and missing) with mode 0600, so that it is never readable by others,
 * not even between its creation by the migrations and this start's end; then sets the modes of everything private
 * that exists: `dataDir` 0700, the database and its -wal and -shm 0600, and data/'s secrets files 0600. SQLite gives
 * a -wal or -shm it creates later the mode of its database file.
 */
export function makeFilesPrivate({ dataDir, dbFile }: { dataDir: string; dbFile: string | null }): void {
  if (dbFile) {
    fs.mkdirSync(path.dirname(dbFile), { recursive: true, mode: PRIVATE_DIR })
    fs.closeSync(fs.openSync(dbFile, 'a', PRIVATE_FILE))
  }
  const chmod = (file: string, mode: number) => {
    try {
      fs.chmodSync(file, mode)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
    }
  }
  chmod(dataDir, PRIVATE_DIR)
  for (const file of dbFile ? [dbFile, `${dbFile}-wal`, `${dbFile}-shm`] : []) chmod(file, PRIVATE_FILE)
  for (const name of ['secrets.json', 'demo-client.json']) chmod(path.join(dataDir, name), PRIVATE_FILE)
}
