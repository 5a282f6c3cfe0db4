// Traces are off unless an OTLP endpoint is configured (docs/operating.md "Traces"): without one the SDK's packages
// are never imported, so no exporter is loaded and no provider is registered.
import { describe, expect, it, vi } from 'vitest'
import { startTracing, tracingConfigured, type LoadSdk } from '../src/server/process/tracing'

describe('tracing settings', () => {
  it('loads no SDK and registers nothing without OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    const load = vi.fn<LoadSdk>()
    expect(await startTracing({ OTEL_SERVICE_NAME: 'gnap-as', OTEL_TRACES_SAMPLER: 'always_on' }, load)).toBeNull()
    expect(load).not.toHaveBeenCalled()
  })

  it('stays off when the SDK is disabled or the traces exporter is none, even with an endpoint', async () => {
    const load = vi.fn<LoadSdk>()
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }
    expect(await startTracing({ ...endpoint, OTEL_SDK_DISABLED: 'true' }, load)).toBeNull()
    expect(await startTracing({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }, load)).toBeNull()
    expect(load).not.toHaveBeenCalled()
  })

  it('is on with either the general or the traces endpoint', () => {
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true)
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true)
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBe(false)
  })
})
