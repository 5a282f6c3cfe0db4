// Migrates a template database once: a SQLite file, or a PostgreSQL database when TEST_DATABASE_URL is set. Each test
// file copies it (see src/testing/test-db.ts), so files run in parallel on a real store without truncating each
// other's data.
import { setupTemplateDb } from '../src/testing/test-db'

export default function setup() {
  return setupTemplateDb('domain')
}
