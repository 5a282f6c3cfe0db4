import { startInteraction } from '@gnap/domain/protocol'
import { interactionStepRoute } from './interaction-step'

export const dynamic = 'force-dynamic'

// id-provider.yaml get-interact
export const GET = interactionStepRoute(startInteraction)
