import { setPasswordRoute } from '../../../../server/edge/set-password-route'

export const dynamic = 'force-dynamic'

// An owner's one-time link to set their password: an invitation or a reset (docs/protocol.md §7).
const route = setPasswordRoute('owner', { path: 'account', text: 'Go to your account' })
export const GET = route.GET
export const POST = route.POST
