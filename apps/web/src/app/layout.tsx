import type { ReactNode } from 'react'

export const metadata = { title: 'GNAP authorization server' }

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
