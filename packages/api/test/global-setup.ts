// Migrates a template SQLite file once; each test file copies it (`buildTestDeps` → createTestDb), so files run in
// parallel on real SQLite, as in packages/domain.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { migrateFile } from '@gnap/domain/testing'

export default function setup() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gnap-api-template-'))
  const file = path.join(dir, 'template.db')
  migrateFile(file)
  process.env.GNAP_TEMPLATE_DB = file
  return () => fs.rmSync(dir, { recursive: true, force: true })
}
