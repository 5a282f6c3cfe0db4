'use client'

import Link from 'next/link'
import { usePathname } from 'next/navigation'

const LINKS = [
  { href: '/admin', label: 'Overview', exact: true },
  { href: '/admin/grants', label: 'Grants', exact: false },
  { href: '/admin/clients', label: 'Clients', exact: false },
  { href: '/admin/owners', label: 'Owners', exact: false },
  { href: '/admin/audit', label: 'Audit log', exact: false },
  { href: '/admin/administrators', label: 'Administrators', exact: false },
] as const

/** The console's main navigation; the current section is marked for screen readers (aria-current). */
export function Nav() {
  const path = usePathname()
  // Token pages belong to the grants they come from.
  const current = (href: string, exact: boolean) =>
    exact ? path === href : path === href || path.startsWith(`${href}/`) || (href === '/admin/grants' && path.startsWith('/admin/tokens'))
  return (
    <nav className="nav" aria-label="Console">
      <ul>
        {LINKS.map((l) => (
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
