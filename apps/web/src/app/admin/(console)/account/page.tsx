import { AccountView } from './account-view'

export const metadata = { title: 'My account' }

export default function AccountPage() {
  return <AccountView />
}
