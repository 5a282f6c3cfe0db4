import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path'
import { migrateFile, generateClientKey, startWalletAddressServer } from '@gnap/domain/testing'
import { signFast } from '../../scripts/bench/lib/signer'
async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gnap-dbg-')); const f = path.join(dir, 'b.db'); migrateFile(f)
  const base = 'http://127.0.0.1:3999/'
  Object.assign(process.env, { AUTH_SERVER_URL: base, DATABASE_URL: `file:${f}`, INTROSPECTION_SECRET: 'x'.repeat(20), LOG_LEVEL: 'warn', RATE_LIMIT_GRANTS_PER_MINUTE: '0' })
  const wallets = await startWalletAddressServer()
  const key = generateClientKey('k')
  const wa = wallets.addClient('a', { publicName: 'A', keys: [key.jwk], authServer: base })
  const grantRoute = await import('./src/app/route')
  const tokenRoute = await import('./src/app/token/[id]/route')
  const intro = await import('./src/app/introspect/route')
  const body = JSON.stringify({ access_token: { access: [{ type: 'incoming-payment', actions: ['create', 'read', 'list'] }] }, client: wa })
  const hdr = (h: Record<string, string>) => h
  const g = await grantRoute.POST(new Request(base, { method: 'POST', headers: hdr(signFast(key, { method: 'POST', url: base, body })), body }), { params: Promise.resolve({}) })
  const gj = await g.json(); if (g.status !== 200) throw new Error(JSON.stringify(gj)); let tok = gj.access_token
  const N = Number(process.env.N || 500)
  const time = async (name: string, fn: () => Promise<unknown>) => { for (let i = 0; i < 100; i++) await fn(); const c = process.cpuUsage(); const t = performance.now(); for (let i = 0; i < N; i++) await fn(); const u = process.cpuUsage(c); console.log(name.padEnd(20), ((performance.now() - t) / N).toFixed(3), 'ms wall', ((u.user + u.system) / 1000 / N).toFixed(3), 'ms cpu') }
  await time('rotate', async () => {
    const id = tok.manage.split('/').pop(); const url = `${base}token/${id}`
    const res = await tokenRoute.POST(new Request(url, { method: 'POST', headers: signFast(key, { method: 'POST', url, authorization: `GNAP ${tok.value}` }) }), { params: Promise.resolve({ id }) })
    if (res.status !== 200) throw new Error(String(res.status) + await res.text())
    tok = (await res.json()).access_token
  })
  await time('introspect', async () => {
    const res = await intro.POST(new Request(`${base}introspect`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${'x'.repeat(20)}` }, body: JSON.stringify({ access_token: tok.value }) }), { params: Promise.resolve({}) })
    if (res.status !== 200) throw new Error(String(res.status))
    await res.json()
  })
  await time('grant', async () => {
    const res = await grantRoute.POST(new Request(base, { method: 'POST', headers: hdr(signFast(key, { method: 'POST', url: base, body })), body }), { params: Promise.resolve({}) })
    if (res.status !== 200) throw new Error(String(res.status))
    await res.json()
  })
  await wallets.close(); process.exit(0)
}
main()
