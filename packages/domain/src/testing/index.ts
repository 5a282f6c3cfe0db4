export { createTestDb, migrateFile, migrate, setupTemplateDb, databaseUrl, adminQuery } from './test-db'
export { assertMatchesSpec, ALLOWED_DEVIATIONS, type SpecName } from './spec-validator'
export { generateClientKey, signedHeaders, signedHeadersWithNonce } from './client-keys'
export { startWalletAddressServer } from './wallet-address-server'
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
