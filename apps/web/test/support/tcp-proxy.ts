// A TCP proxy between the server and its PostgreSQL, so a test can take the database away from one server (the
// PostgreSQL server itself is shared) and give it back: `cut()` drops every connection and stops listening (new
// connections are refused), `restore()` listens again on the same port.
import net from 'node:net'
import { freePort } from '@gnap/test-support'

export interface TcpProxy {
  port: number
  cut(): Promise<void>
  restore(): Promise<void>
  close(): Promise<void>
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const port = await freePort()
  const sockets = new Set<net.Socket>()
  let server: net.Server | null = null
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host)
        sockets.add(client).add(upstream)
        const end = () => {
          client.destroy()
          upstream.destroy()
          sockets.delete(client)
          sockets.delete(upstream)
        }
        for (const side of [client, upstream]) side.on('error', end).on('close', end)
        client.pipe(upstream)
        upstream.pipe(client)
      })
      s.once('error', reject)
      s.listen(port, '127.0.0.1', () => {
        server = s
        resolve()
      })
    })
  const cut = () =>
    new Promise<void>((resolve) => {
      const s = server
      server = null
      for (const socket of sockets) socket.destroy()
      sockets.clear()
      if (s) s.close(() => resolve())
      else resolve()
    })
  await listen()
  return { port, cut, restore: listen, close: cut }
}

/** `url` (a postgresql:// URL) with its host and port replaced by the proxy's. */
export function throughProxy(url: string, proxy: TcpProxy): string {
  const u = new URL(url)
  u.hostname = '127.0.0.1'
  u.port = String(proxy.port)
  return u.toString()
}
