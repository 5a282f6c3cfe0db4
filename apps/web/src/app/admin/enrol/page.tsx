import { redirect } from 'next/navigation'
import { currentAdminSession } from '../../../server/edge/admin-session'
import { AdminProviders } from '../_lib/trpc'
import { SignOutButton } from '../_components/sign-out-button'
import { EnrolNow } from './enrol-now'

export const metadata = { title: 'Turn on two-step sign-in' }

/**
 * ADMIN_REQUIRE_TOTP (docs/protocol.md §2.17): an administrator without two-step sign-in lands here after their
 * password and can do nothing else until it is on. Everyone else goes on to the console.
 */
export default async function EnrolPage() {
  const session = await currentAdminSession()
  if (!session) redirect('/admin/sign-in')
  if (!session.mustEnrol) redirect('/admin/account')
  return (
    <AdminProviders csrfToken={session.csrfToken}>
      <main className="sign-in" id="main">
        <div className="panel">
          <h1>Turn on two-step sign-in</h1>
          <p>
            This server asks every administrator to sign in with a password and a code from an app on their phone. Set it up now to use the console,
            signed in as <strong>{session.admin.email}</strong>.
          </p>
          <EnrolNow />
          <p className="muted">
            Not now? <SignOutButton />
          </p>
        </div>
      </main>
    </AdminProviders>
  )
}
