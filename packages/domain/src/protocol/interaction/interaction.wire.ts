import type { InteractionState } from '../grant/grant-state'

// The interaction state as id-provider.yaml spells it (get-grant `state`): upper case on the wire, the stored
// state's lower case everywhere else.

export type WireInteractionState = 'PENDING' | 'APPROVED' | 'DENIED'

export const toWireInteractionState = (state: InteractionState): WireInteractionState => state.toUpperCase() as WireInteractionState
