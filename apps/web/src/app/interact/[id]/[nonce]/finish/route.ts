import { finishInteraction } from '@gnap/domain/protocol'
import { interactionStepRoute } from '../interaction-step'

export const dynamic = 'force-dynamic'

// id-provider.yaml get-finish-interaction
export const GET = interactionStepRoute(finishInteraction)
