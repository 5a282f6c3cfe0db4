/**
 * The files of `public/`, served by Next as they are. Next answers any method but GET and HEAD on them with a
 * plain-text 500 (as on the build's `/_next/static/` assets), so the proxy (src/proxy.ts) refuses those methods first. A test keeps this list equal to the
 * directory.
 */
export const PUBLIC_FILES: ReadonlySet<string> = new Set(['/favicon.svg', '/pages.css'])
