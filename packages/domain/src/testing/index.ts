export { createTestDb, migrateFile } from './test-db'
export { assertMatchesSpec, ALLOWED_DEVIATIONS, type SpecName } from './spec-validator'
export { generateClientKey, signedHeaders } from './client-keys'
export { startWalletAddressServer } from './wallet-address-server'
