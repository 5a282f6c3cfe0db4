import { Time } from '../../../_components/ui'
import { AdminStatusBadge, ROLE_TEXT } from '../admin-words'
import type { Admin } from './administrator-words'

/** What the account is: role, status, two-step sign-in, last sign-in, when added. */
export function AccountFacts({ admin }: { admin: Admin }) {
  return (
    <section className="panel" aria-labelledby="account-heading">
      <h2 id="account-heading">Account</h2>
      <dl className="facts">
        <dt>Role</dt>
        <dd>
          {ROLE_TEXT[admin.role].label}: {ROLE_TEXT[admin.role].may}
        </dd>
        <dt>Status</dt>
        <dd>
          <AdminStatusBadge status={admin.status} />{' '}
          {admin.status === 'disabled'
            ? 'Cannot sign in until enabled.'
            : admin.status === 'invited'
              ? 'Cannot sign in until they set a password with their link.'
              : 'Can sign in.'}
        </dd>
        <dt>Two-step sign-in</dt>
        <dd>{admin.twoStep ? 'On: they sign in with a password and a code from their app.' : 'Off: they sign in with a password alone.'}</dd>
        <dt>Last sign-in</dt>
        <dd>
          <Time value={admin.lastSignInAt} empty="Never" />
        </dd>
        <dt>Added</dt>
        <dd>
          <Time value={admin.createdAt} />
        </dd>
      </dl>
    </section>
  )
}
