import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

// A loopback wallet address server for tests: serves each test client's wallet address document and JWKS
// (wallet-address-server.yaml get-wallet-address, get-wallet-address-keys).

export interface TestWalletAddressClient {
  publicName?: string
  /** Served as-is, so tests can also publish odd or foreign keys. */
  keys: object[]
  authServer: string
}

export interface WalletAddressServer {
  /** Base URL, e.g. http://127.0.0.1:54321 */
  url: string
  /** Registers a client; returns its wallet address URL `${url}/${name}`. */
  addClient(name: string, opts: TestWalletAddressClient): string
  /** Replaces the keys the client's JWKS publishes. */
  setKeys(name: string, keys: object[]): void
  /** Paths requested so far, in order (for cache assertions). */
  requests: string[]
  close(): Promise<void>
}

export async function startWalletAddressServer({ host = '127.0.0.1' }: { host?: string } = {}): Promise<WalletAddressServer> {
  const clients = new Map<string, TestWalletAddressClient>()
  const requests: string[] = []
  let baseUrl = ''

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://placeholder').pathname
    requests.push(path)
    const match = /^\/([^/]+)(\/jwks\.json)?$/.exec(path)
    const name = match?.[1] === undefined ? undefined : decodeURIComponent(match[1])
    const client = name === undefined ? undefined : clients.get(name)
    if (req.method !== 'GET' || name === undefined || client === undefined) {
      res.writeHead(404).end()
      return
    }
    const body =
      match?.[2] === undefined
        ? {
            id: `${baseUrl}/${encodeURIComponent(name)}`,
            ...(client.publicName !== undefined ? { publicName: client.publicName } : {}),
            assetCode: 'USD',
            assetScale: 2,
            authServer: client.authServer,
            resourceServer: baseUrl,
          }
        : { keys: client.keys }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, host, () => resolve())
  })
  const { port } = server.address() as AddressInfo
  baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`

  return {
    url: baseUrl,
    requests,
    addClient(name, opts) {
      clients.set(name, { ...opts, keys: [...opts.keys] })
      return `${baseUrl}/${encodeURIComponent(name)}`
    },
    setKeys(name, keys) {
      const client = clients.get(name)
      if (client === undefined) throw new Error(`unknown test client ${name}`)
      client.keys = [...keys]
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((err) => (err ? reject(err) : resolve()))
      }),
  }
}
