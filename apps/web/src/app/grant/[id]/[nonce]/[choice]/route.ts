import { recordConsent } from '@gnap/domain'
import { callerAddress } from '../../../../../server/caller-ip'
import { gnapRoute } from '../../../../../server/gnap-route'

export const dynamic = 'force-dynamic'

// id-provider.yaml post-grant-choice
export const POST = gnapRoute({}, async ({ deps, req, params }) => {
  await recordConsent(deps, {
    interactionId: params.id ?? '',
    nonce: params.nonce ?? '',
    choice: params.choice ?? '',
    idpSecret: req.headers.get('x-idp-secret'),
    ip: callerAddress(req, deps.config),
  })
  return new Response(null, { status: 202 })
})
