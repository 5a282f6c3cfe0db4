'use client'

import Link from 'next/link'
import { usePathname } from 'next/navigation'
import type { AdminRole } from '@gnap/domain/operator'

const LINKS: readonly { href: string; label: string; exact: boolean; role?: AdminRole }[] = [
  { href: '/admin', label: 'Overview', exact: true },
  { href: '/admin/grants', label: 'Grants', exact: false },
  { href: '/admin/clients', label: 'Clients', exact: false },
  { href: '/admin/owners', label: 'Owners', exact: false },
  { href: '/admin/tenants', label: 'Tenants', exact: false },
  { href: '/admin/webhooks', label: 'Webhooks', exact: false },
  { href: '/admin/audit', label: 'Audit log', exact: false },
  { href: '/admin/administrators', label: 'Administrators', exact: false },
  { href: '/admin/api-keys', label: 'API keys', exact: false, role: 'admin' },
]

/**
 * The console's main navigation; the current section is marked for screen readers (aria-current). Sections the
 * administrator's role cannot use are left out (the server refuses them anyway).
 */
export function Nav({ role }: { role: AdminRole }) {
  const path = usePathname()
  // Token pages belong to the grants they come from.
  const current = (href: string, exact: boolean) =>
    exact ? path === href : path === href || path.startsWith(`${href}/`) || (href === '/admin/grants' && path.startsWith('/admin/tokens'))
  return (
    <nav className="nav" aria-label="Console">
      <ul>
        {LINKS.filter((l) => !l.role || l.role === role).map((l) => (
          <li key={l.href}>
            <Link href={l.href} aria-current={current(l.href, l.exact) ? 'page' : undefined}>
              {l.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  )
}
