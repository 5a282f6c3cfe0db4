import { redirect } from 'next/navigation'
import { currentAdminSession } from '../../../../server/edge/admin-session'
import { ApiKeysView } from './api-keys-view'

export const metadata = { title: 'API keys' }

/** API keys of back ends (docs/protocol.md §2.18): `admin` people only; the server refuses the others too. */
export default async function ApiKeysPage() {
  const session = await currentAdminSession()
  if (!session) redirect('/admin/sign-in')
  if (session.admin.role !== 'admin') {
    return (
      <>
        <h1>API keys</h1>
        <div className="message info">
          <p>Only administrators with the admin role manage API keys. Ask one of them for a key for your back end.</p>
        </div>
      </>
    )
  }
  return <ApiKeysView />
}
