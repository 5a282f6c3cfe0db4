export { createTestDb, migrateFile, migrate, setupTemplateDb, databaseUrl, adminQuery } from './test-db'
export { assertMatchesSpec, requestSpecErrors, ALLOWED_DEVIATIONS, type SpecName } from './spec-validator'
export { contentDigest, generateClientKey, signedHeaders, signedHeadersCovering, signedHeadersWithNonce } from './client-keys'
export { startWalletAddressServer } from './wallet-address-server'
export { keyCreator } from './key-creator'
export {
  buildTestDeps,
  fakeClock,
  testConfig,
  authAs,
  grantRequest,
  incomingAccess,
  outgoingAccess,
  quoteAccess,
  databaseText,
  TEST_CLIENT,
  TEST_OWNER,
  TEST_IDP_SECRET,
  type TestDeps,
  type FakeClock,
} from './deps'
export {
  issueNonInteractiveGrant,
  issueInteractiveGrant,
  requestPendingGrant,
  approvedGrant,
  interact,
  lastSegment,
  type IssuedGrant,
  type PendingGrant,
} from './grant-flows'
export type { ClientKey } from './client-keys'
// The benchmark's (tooling/bench) query plans and bulk seeding: repository functions and the SQL runner they take,
// the admin list's cursor, the generated client's input types.
export type { SqlRunner } from '../kernel/db/sql'
export { findTokenByManagementId, findTokenForIntrospection, markRotated } from '../protocol/access-token/access-token.repo'
export { findGrantByContinueId } from '../protocol/grant/grant.repo'
export { encodeCursor } from '../operator/admin/page-cursor'
export type { Prisma, PrismaClient } from '../kernel/db/store'
export { ownerCursor } from '../operator/owner/owner-views'
