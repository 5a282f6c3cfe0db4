import { z } from 'zod'
import { ConsoleError } from './console-error'

// Keyset cursors: the sort value and id of the last row of a page, not a row reference, so a cursor stays valid
// when its row is deleted, and rows with equal timestamps are split by id. Opaque to the browser (base64url JSON);
// they carry nothing that the page itself does not show.

const CursorSchema = z.strictObject({
  /** which ordering the cursor belongs to, e.g. `createdAt:desc` */
  o: z.string().max(40),
  /** the sort value of the last row, ISO 8601 */
  v: z.iso.datetime(),
  /** the id of the last row */
  i: z.string().min(1).max(64),
})

export interface CursorPosition {
  value: Date
  id: string
}

export function encodeCursor(ordering: string, position: CursorPosition): string {
  return Buffer.from(JSON.stringify({ o: ordering, v: position.value.toISOString(), i: position.id }), 'utf8').toString('base64url')
}

/**
 * The position a cursor names, for the same ordering only.
 * @throws ConsoleError bad_request for a malformed cursor or one made for another ordering (or, where the ordering names
 *   them, other filters)
 */
export function decodeCursor(ordering: string, cursor: string): CursorPosition {
  let parsed: z.infer<typeof CursorSchema>
  try {
    parsed = CursorSchema.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')))
  } catch {
    throw new ConsoleError('bad_request', 'invalid cursor: start again from the first page')
  }
  if (parsed.o !== ordering)
    throw new ConsoleError('bad_request', 'the cursor belongs to another sort order or other filters: start again from the first page')
  return { value: new Date(parsed.v), id: parsed.i }
}
