import { redirect } from 'next/navigation'
import { currentAdminSession } from '../../../server/edge/admin-session'
import { AdminProviders } from '../_lib/trpc'
import { SignInForm } from './sign-in-form'

export const metadata = { title: 'Sign in' }

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  if (await currentAdminSession()) redirect('/admin')
  const query = await searchParams
  const notice =
    query['signed-out'] !== undefined
      ? 'You are signed out.'
      : query.ended !== undefined
        ? 'Your session has ended. Sign in again to continue.'
        : null
  return (
    <AdminProviders csrfToken={null}>
      <main className="sign-in" id="main">
        <div className="panel">
          <h1>Sign in to the admin console</h1>
          <p className="muted">Administrators see and revoke the grants and tokens of this authorization server.</p>
          {notice && (
            <div className="message info" role="status">
              <p>{notice}</p>
            </div>
          )}
          <SignInForm />
        </div>
      </main>
    </AdminProviders>
  )
}
