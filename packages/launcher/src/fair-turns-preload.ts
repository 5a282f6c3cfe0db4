// `node --import <this module, compiled: dist/fair-turns-preload.js> <server>`: the first HTTP server that process
// creates gets the launcher's fair event-loop turns (fair-turns.ts, default budget). The benchmark serves its ceiling
// app with it, so the ceiling runs `next start` as our workers do.
import { installFairTurns } from './fair-turns.js'

installFairTurns()
