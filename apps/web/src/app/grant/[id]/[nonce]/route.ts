import { getGrantForConsent } from '@gnap/domain/protocol'
import { callerAddress } from '../../../../server/edge/caller-ip'
import { gnapRoute } from '../../../../server/edge/gnap-route'

export const dynamic = 'force-dynamic'

// id-provider.yaml get-grant
export const GET = gnapRoute({}, ({ deps, req, params }) =>
  getGrantForConsent(deps, {
    interactionId: params.id ?? '',
    nonce: params.nonce ?? '',
    idpSecret: req.headers.get('x-idp-secret'),
    ip: callerAddress(req, deps.config),
  }),
)
