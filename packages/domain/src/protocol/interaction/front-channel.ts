import type { GnapErrorCode } from '../../kernel/errors'

/**
 * What a browser-facing interaction step answers. Pages are rendered by the app as HTML for people, or as the
 * GNAP error JSON for callers that accept JSON (id-provider.yaml).
 */
export type FrontChannelResult =
  | { kind: 'redirect'; location: string; session?: { value: string; maxAgeSeconds: number } }
  | { kind: 'accepted'; message: string; link?: PageLink }
  | { kind: 'page'; status: number; code: GnapErrorCode; title: string; message: string; link?: PageLink }

/** A link a page offers instead of a redirect: the person decides whether to follow it (docs/protocol.md §2.7). */
export interface PageLink {
  href: string
  text: string
}

export const page = (status: number, code: GnapErrorCode, title: string, message: string, link?: PageLink): FrontChannelResult => ({
  kind: 'page',
  status,
  code,
  title,
  message,
  ...(link ? { link } : {}),
})

/** Adds query parameters to a client's finish URI, URL-encoded (base64's `+ / =` become %2B %2F %3D). */
export function withQuery(uri: string, params: Record<string, string>): string {
  const url = new URL(uri)
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
  return url.href
}
