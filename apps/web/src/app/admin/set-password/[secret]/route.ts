import { setPasswordRoute } from '../../../../server/edge/set-password-route'

export const dynamic = 'force-dynamic'

// An administrator's one-time link to set their password: an invitation or a reset (docs/protocol.md §2.14).
const route = setPasswordRoute('admin', { path: 'admin/sign-in', text: 'Sign in to the console' })
export const GET = route.GET
export const POST = route.POST
