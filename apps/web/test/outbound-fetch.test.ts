// Outbound fetches in production over HTTP against `next start` (docs/protocol.md §4.3): with NODE_ENV=production and
// WALLET_ADDRESS_ALLOWED_NETWORKS unset, a grant request whose client names a loopback address, in any spelling, is
// answered 400 invalid_client and the server never opens a connection to it.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateClientKey } from '@gnap/domain/testing'
import { startServer, type RunningServer } from '@gnap/test-support'
import { expectGnapError, incomingAccess, rowCounts, signedFetch } from './support/raw-http'

let server: RunningServer
let connections = 0
const listeners: Server[] = []
const ports: { v4: number; v6: number | null } = { v4: 0, v6: null }

async function listen(host: string): Promise<number | null> {
  const listener = createServer((_req, res) => res.writeHead(404).end())
  listener.on('connection', () => connections++)
  const port = await new Promise<number | null>((resolve) => {
    listener.once('error', () => resolve(null))
    listener.listen(0, host, () => resolve((listener.address() as AddressInfo).port))
  })
  if (port !== null) listeners.push(listener)
  return port
}

beforeAll(async () => {
  // The tests' default lists loopback; unset, production allows no network besides public addresses.
  server = await startServer({ WALLET_ADDRESS_ALLOWED_NETWORKS: undefined })
  ports.v4 = (await listen('127.0.0.1'))!
  ports.v6 = await listen('::1')
})
afterAll(async () => {
  for (const l of listeners) l.closeAllConnections()
  await Promise.all([server?.stop(), ...listeners.map((l) => new Promise<void>((resolve) => l.close(() => resolve())))])
})

describe('a production server never connects to loopback for a client wallet address', () => {
  const clients = () => [
    `https://127.0.0.1:${ports.v4}/app`,
    `http://127.0.0.1:${ports.v4}/app`,
    `http://2130706433:${ports.v4}/app`,
    `http://127.1:${ports.v4}/app`,
    `http://0x7f.1:${ports.v4}/app`,
    `http://0177.0.0.1:${ports.v4}/app`,
    `http://[::ffff:127.0.0.1]:${ports.v4}/app`,
    `https://[::ffff:127.0.0.1]:${ports.v4}/app`,
    `http://localhost:${ports.v4}/app`,
    ...(ports.v6 !== null ? [`http://[::1]:${ports.v6}/app`, `https://localhost:${ports.v6}/app`] : []),
  ]

  it('answers each 400 invalid_client, writes nothing, and the listeners saw no connection', async () => {
    const key = generateClientKey('key-1')
    const before = rowCounts(server.dbFile)
    for (const client of clients()) {
      const res = await signedFetch(key, { method: 'POST', url: server.url, body: { access_token: { access: incomingAccess }, client } })
      await expectGnapError('POST', server.url, res, 400, 'invalid_client')
    }
    expect(connections).toBe(0)
    expect(rowCounts(server.dbFile)).toEqual(before)
    // The operator can tell why: each refusal is logged with the URL.
    expect(server.logs()).toContain(`wallet address fetch refused`)
    expect(server.logs()).toContain(`http://localhost:${ports.v4}/app/jwks.json`)
  })
})
