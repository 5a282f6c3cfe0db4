import { ProxyTracerProvider, context, propagation, trace } from '@opentelemetry/api'
import type { Sampler } from '@opentelemetry/sdk-trace'
import { enableTracing } from '@gnap/domain/kernel'
import { otelSettings } from '../../env'

// OpenTelemetry traces (docs/operating.md "Traces"), set up once per process before any request, from the standard
// OTEL_* settings. Off unless an OTLP endpoint is configured: then nothing below is imported, no provider is
// registered and the domain's tracing port (kernel/tracing.ts) never calls the OpenTelemetry API.

type Env = Readonly<Record<string, string | undefined>>

/** Whether the settings ask for traces: an OTLP endpoint, and neither OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none. */
export function tracingConfigured(env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim())
}

/** What the SDK packages give, loaded only when traces are configured (a seam for the off test). */
export type LoadSdk = typeof loadSdk

async function loadSdk() {
  const [sdk, { OTLPTraceExporter }, { AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, resources] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
  ])
  return { sdk, OTLPTraceExporter, AsyncLocalStorageContextManager, W3CTraceContextPropagator, resources }
}

/**
 * Starts tracing when configured: an OTLP/HTTP (JSON) exporter behind a batch processor, the sampler of
 * OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG (default parentbased_always_on), the resource of OTEL_SERVICE_NAME and
 * OTEL_RESOURCE_ATTRIBUTES (service.name `gnap-as` when unnamed), AsyncLocalStorage context and the W3C Trace Context
 * propagator. Returns a function that flushes and stops it, or null when off.
 */
export async function startTracing(env: Env = otelSettings(), load: LoadSdk = loadSdk): Promise<(() => Promise<void>) | null> {
  if (!tracingConfigured(env)) return null
  const { sdk, OTLPTraceExporter, AsyncLocalStorageContextManager, W3CTraceContextPropagator, resources } = await load()
  const detected = resources.detectResources({ detectors: [resources.envDetector] })
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': 'gnap-as' }))
    .merge(detected)
  const provider = new sdk.TracerProvider({
    resource,
    sampler: samplerOf(sdk, env),
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
  })
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  propagation.setGlobalPropagator(new W3CTraceContextPropagator())
  // Next.js's own spans stay unrecorded: they carry the raw URL (`http.target`, with the interaction nonce and the
  // finish query) and double ours. Its tracer gets the API's no-op, which still carries an incoming traceparent for
  // our request span to continue (kernel/tracing.ts).
  const silent = new ProxyTracerProvider()
  trace.setGlobalTracerProvider({
    getTracer: (name, version, options) => (name === 'next.js' ? silent : provider).getTracer(name, version, options),
  })
  enableTracing()
  return () => provider.shutdown()
}

type Sdk = Awaited<ReturnType<typeof loadSdk>>['sdk']

/** The standard sampler names of OTEL_TRACES_SAMPLER; a ratio out of [0, 1] or unreadable counts as 1. */
function samplerOf(sdk: Sdk, env: Env): Sampler {
  const arg = Number(env.OTEL_TRACES_SAMPLER_ARG)
  const ratio = Number.isFinite(arg) && arg >= 0 && arg <= 1 && env.OTEL_TRACES_SAMPLER_ARG?.trim() ? arg : 1
  switch ((env.OTEL_TRACES_SAMPLER ?? '').trim().toLowerCase()) {
    case 'always_on':
      return new sdk.AlwaysOnSampler()
    case 'always_off':
      return new sdk.AlwaysOffSampler()
    case 'traceidratio':
      return new sdk.TraceIdRatioBasedSampler(ratio)
    case 'parentbased_always_off':
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOffSampler() })
    case 'parentbased_traceidratio':
      return new sdk.ParentBasedSampler({ root: new sdk.TraceIdRatioBasedSampler(ratio) })
    default:
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() })
  }
}
