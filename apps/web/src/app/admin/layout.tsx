import type { ReactNode } from 'react'
import './admin.css'

export const metadata = { title: { template: '%s · GNAP admin', default: 'GNAP admin' } }

/** Every page under /admin: the console's stylesheet. The session check is in (console)/layout.tsx. */
export default function AdminLayout({ children }: { children: ReactNode }) {
  return children
}
