import cluster from 'node:cluster'
import { createGuardedFetch } from '@gnap/domain/kernel'
import { startRetentionJob, startWebhookWorker } from '@gnap/domain/operator'
import { getDeps } from './server/process/deps'
import { refuseForbiddenMethods } from './server/edge/forbidden-methods'
import { startServiceApiListener } from './server/edge/service-api-listener'
import { startAdminApiListener } from './server/edge/admin-api-listener'
import { ensureOperatorTenant } from '@gnap/domain/protocol'
import { announceIntrospectionListener, startIntrospectionListener } from './server/edge/introspection-listener'
import { startMetricsListener } from './server/edge/metrics-endpoint'
import { startTracing } from './server/process/tracing'
import { installProcessEdge, stopGracefullyOnSignals, stopWhenStopping } from './server/process/process-edge'

/**
 * Validates the settings and opens the database, so a bad setting stops the server with a message naming it
 * instead of failing the first request; then starts the retention job and, when asked for, the introspection listener.
 */
export async function registerNode(): Promise<void> {
  // Before any request: Next answers CONNECT, TRACE and TRACK with a 500 otherwise.
  refuseForbiddenMethods()
  try {
    // OTEL_EXPORTER_OTLP_ENDPOINT set: spans of every request, statement, signature check and outbound call, exported
    // over OTLP/HTTP (docs/operating.md "Traces"); flushed when the process stops. Off otherwise: no SDK loaded.
    const stopTracing = await startTracing()
    if (stopTracing) stopWhenStopping(() => stopTracing())
    const deps = await getDeps()
    // Every request from here on: its id, on its answer and its log lines; counted while in flight, so that SIGTERM
    // turns /readyz to 503 and waits for them (docs/protocol.md §2.19).
    installProcessEdge(deps.config)
    stopGracefullyOnSignals(deps.config, deps.log)
    // Deletes dead token rows, expired signature nonces and old rate-limit counters in small batches, in the
    // background of this process (unref'd timers: they never hold a shutdown).
    startRetentionJob(deps)
    // Webhook deliveries (docs/webhooks.md): every process runs a worker, under the launcher one per worker process;
    // leases keep two of them from sending one attempt at once. Deliveries obey WEBHOOK_ALLOWED_NETWORKS as wallet
    // address fetches obey theirs. A graceful stop ends its claims at the signal and lets the attempts it is sending
    // finish (each takes at most 5 s); a killed process leaves its leases to run out, and another worker sends again.
    const webhooks = startWebhookWorker(deps, { fetch: createGuardedFetch(deps.config.webhookAllowedNetworks) })
    stopWhenStopping((graceMs) => webhooks.stop(graceMs))
    // OPERATOR_TENANT_ID set: the operator tenant exists, with ADMIN_API_SECRET as its API secret (docs/protocol.md §2.21).
    const operator = await ensureOperatorTenant(deps)
    if (operator !== 'none')
      deps.log.info({ operatorTenant: deps.config.operatorTenant?.id, created: operator === 'created' }, 'operator tenant ready')
    // INTROSPECTION_PORT set: resource servers' POST / on that port too (docs/protocol.md §2.6). An address that
    // cannot be taken stops this process like a bad setting. One line says whether it asks for credentials.
    if (await startIntrospectionListener(deps)) announceIntrospectionListener(deps)
    // SERVICE_API_PORT set: the service API a Rafiki backend calls for its tenants (docs/protocol.md §2.21). Said at
    // start whether it asks for a bearer secret.
    if (await startServiceApiListener(deps)) {
      const { port, host, secrets } = deps.config.serviceApi!
      deps.log.info({ serviceApi: { port, host, bearerSecret: secrets !== null } }, 'service API listener ready')
    }
    // ADMIN_PORT set: Rafiki's auth Admin API, POST /graphql signed per tenant (docs/admin-api.md).
    if (await startAdminApiListener(deps)) {
      const { port, host, signatureVersion, signatureTtlSeconds } = deps.config.adminApi!
      deps.log.info({ adminApi: { port, host, signatureVersion, signatureTtlSeconds } }, 'admin API listener ready')
    }
    // METRICS_PORT outside the launcher (whose primary serves it for all its workers).
    if (await startMetricsListener(deps)) deps.log.info({ metricsPort: deps.config.metricsPort }, 'metrics listener ready')
    deps.log.info({ authServer: deps.config.authServerUrl }, 'authorization server ready')
    // Under the launcher (packages/launcher/src/serve.ts) this worker counts as started only now: one that exits before this is a
    // start-up failure, and repeated ones stop the launcher instead of restarting forever.
    if (cluster.isWorker) process.send?.({ gnap: 'ready' })
  } catch (e) {
    console.error(e instanceof Error ? e.message : String(e))
    process.exit(1)
  }
}
