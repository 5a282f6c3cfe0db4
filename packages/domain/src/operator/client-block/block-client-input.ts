import { z } from 'zod'

// The part of blocking a client that the console's browser checks too (through console-inputs.ts): this file imports
// nothing server-side.

/** Why a client is blocked: kept with the block and in the audit log, never told to the client. */
export const BlockReasonSchema = z.string().trim().min(1, 'give a reason before blocking').max(500)
