import { Facts, Panel } from '../../../_components/detail-page'
import { Time } from '../../../_components/ui'
import { AdminStatusBadge, ROLE_TEXT } from '../admin-words'
import type { Admin } from './administrator-words'

const STATUS_MEANING = {
  disabled: 'Cannot sign in until enabled.',
  invited: 'Cannot sign in until they set a password with their link.',
  active: 'Can sign in.',
} as const

/** What the account is: role, status, two-step sign-in, last sign-in, when added. */
export function AccountFacts({ admin }: { admin: Admin }) {
  return (
    <Panel id="account" heading="Account">
      <Facts
        facts={[
          ['Role', `${ROLE_TEXT[admin.role].label}: ${ROLE_TEXT[admin.role].may}`],
          [
            'Status',
            <>
              <AdminStatusBadge status={admin.status} /> {STATUS_MEANING[admin.status]}
            </>,
          ],
          [
            'Two-step sign-in',
            admin.twoStep ? 'On: they sign in with a password and a code from their app.' : 'Off: they sign in with a password alone.',
          ],
          ['Last sign-in', <Time value={admin.lastSignInAt} empty="Never" />],
          ['Added', <Time value={admin.createdAt} />],
        ]}
      />
    </Panel>
  )
}
