import type { RequestListener } from 'node:http'

export interface FairTurnsOptions {
  /** Milliseconds one turn of the event loop may spend starting requests; 0 returns the listener unwrapped. Default 5. */
  budgetMs?: number
  /** A clock in milliseconds (tests). Default: performance.now. */
  now?: () => number
}

export const DEFAULT_TURN_BUDGET_MS: number

export function fairTurns(listener: RequestListener, options?: FairTurnsOptions): RequestListener

export function installFairTurns(options?: FairTurnsOptions): void
