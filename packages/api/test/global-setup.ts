// Migrates a template database once (SQLite, or PostgreSQL when TEST_DATABASE_URL is set); each test file copies it
// (`buildTestDeps` → createTestDb), so files run in parallel, as in packages/domain.
import { setupTemplateDb } from '@gnap/domain/testing'

export default function setup() {
  return setupTemplateDb('api')
}
