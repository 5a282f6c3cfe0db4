import { AdministratorDetail } from './administrator-detail'

export const metadata = { title: 'Administrator' }

export default async function AdministratorPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params
  return <AdministratorDetail id={id} />
}
