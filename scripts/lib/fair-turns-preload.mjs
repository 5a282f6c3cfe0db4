// `node --import ./scripts/lib/fair-turns-preload.mjs <server>`: the first HTTP server that process creates gets the
// launcher's fair event-loop turns (fair-turns.mjs, default budget). The benchmark serves its ceiling app with it, so
// the ceiling runs `next start` as our workers do.
import { installFairTurns } from './fair-turns.mjs'

installFairTurns()
