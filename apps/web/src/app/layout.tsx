import type { ReactNode } from 'react'

// The icon is public/favicon.svg: the server-rendered pages (server/pages.ts) link the same file.
export const metadata = { title: 'GNAP authorization server', icons: { icon: { url: '/favicon.svg', type: 'image/svg+xml' } } }

// Every page renders per request: the proxy's CSP allows only scripts carrying that request's nonce, which Next
// can put on its inline scripts only while rendering (a page prerendered at build time would have none).
export const dynamic = 'force-dynamic'

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  )
}
