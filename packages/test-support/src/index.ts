// Servers for the tests and the benchmark, run from the production build as an operator runs them: one `next start`
// on a fresh SQLite file (server.ts), or instances of the launcher on one database (instances.ts); a webhook receiver
// on loopback (webhook-receiver.ts).
export {
  freePort,
  migrateDatabase,
  root,
  startInstance,
  startInstances,
  type Instance,
  type InstanceOptions,
  type InstancesOptions,
} from './instances'
export { IDP_SECRET, INTROSPECTION_SECRET, startServer, testServerEnv, type RunningServer, type StartOptions } from './server'
export { freshTotpCode, markTotpCodeUsed } from './totp'
export {
  addWebhookEndpoint,
  loopbackCertificate,
  startWebhookReceiver,
  type ReceivedWebhook,
  type WebhookAnswer,
  type WebhookReceiver,
} from './webhook-receiver'
