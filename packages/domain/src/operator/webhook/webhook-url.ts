import { isLoopbackHost } from '../../protocol/client/wallet-address'

// The scheme rule of webhook endpoints (docs/webhooks.md), checked when an endpoint is saved and again at every
// delivery: `https:`, or `http:` to this machine (a local receiver; production refuses loopback addresses unless
// WEBHOOK_ALLOWED_NETWORKS lists them), or `http:` anywhere when ALLOW_HTTP_WEBHOOKS is set. The same rule as for
// wallet addresses (protocol/client/wallet-address.ts).

export function isAllowedWebhookScheme(url: URL, allowHttp: boolean): boolean {
  if (url.protocol === 'https:') return true
  return url.protocol === 'http:' && (allowHttp || isLoopbackHost(url.hostname))
}
