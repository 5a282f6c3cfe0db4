import { z } from 'zod'

// An administrator's email as every form takes it (the first administrator, an invitation), with no server-side
// imports: the console's browser code checks its invitation form with it too (`@gnap/domain/console-inputs`).

/** An administrator's email as it is stored and compared: lower case. */
export const AdminEmailSchema = z
  .email('give an email address, such as name@example.com')
  .max(254, 'at most 254 characters')
  .transform((e) => e.toLowerCase())
