import fs from 'node:fs'
import { summarise, formatSummary } from './lib/cpuprofile'
const f = process.argv[2]!
const s = summarise(JSON.parse(fs.readFileSync(f, 'utf8')), undefined, 60)
console.log(formatSummary('x', s, 60))
