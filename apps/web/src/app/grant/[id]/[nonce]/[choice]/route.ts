import { recordConsent } from '@gnap/domain/protocol'
import { callerAddress } from '../../../../../server/edge/caller-ip'
import { answers, gnapRoute } from '../../../../../server/edge/gnap-route'

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
  return answers.accepted()
})
