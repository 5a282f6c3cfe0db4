import Link from 'next/link'
import { redirect } from 'next/navigation'
import type { ReactNode } from 'react'
import { currentAdminSession } from '../../../server/edge/admin-session'
import { AdminProviders } from '../_lib/trpc'
import { RoleProvider } from '../_lib/role'
import { Nav } from '../_components/nav'
import { SignOutButton } from '../_components/sign-out-button'

/**
 * Every console page: checked on the server before anything renders (no admin session: to the sign-in page). The
 * session's CSRF token goes into the page here, for the tRPC client's mutation header, and the administrator's role,
 * for hiding what it does not allow.
 */
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const session = await currentAdminSession()
  if (!session) redirect('/admin/sign-in')
  // ADMIN_REQUIRE_TOTP and no two-step sign-in yet: only the enrolment (docs/protocol.md §2.17).
  if (session.mustEnrol) redirect('/admin/enrol')
  return (
    <AdminProviders csrfToken={session.csrfToken}>
      <RoleProvider admin={session.admin}>
        <a href="#main" className="skip-link">
          Skip to content
        </a>
        <header className="topbar">
          <div className="topbar-inner">
            <Link href="/admin" className="brand">
              GNAP <span>admin</span>
            </Link>
            <Nav role={session.admin.role} />
            <div className="who">
              <span>
                Signed in as <strong>{session.admin.email}</strong> ({session.admin.role})
              </span>
              <Link href="/admin/account" className="button quiet">
                My account
              </Link>
              <SignOutButton />
            </div>
          </div>
        </header>
        <main id="main" className="content" tabIndex={-1}>
          {children}
        </main>
      </RoleProvider>
    </AdminProviders>
  )
}
