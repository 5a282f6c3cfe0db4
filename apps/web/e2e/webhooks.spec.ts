// Webhooks in the admin console, in a real browser (Debian's chromium) against the production build (docs/webhooks.md):
// an administrator adds an endpoint from the keyboard alone, pointing at a receiver this test runs on loopback (https,
// as endpoints elsewhere than loopback must be in production, with a certificate the server trusts through
// NODE_EXTRA_CA_CERTS, so deliveries go through TLS and the guarded fetch's address check), and reads
// its signing secret once; the receiver verifies every delivery with the `standardwebhooks` library and that secret.
// The owner revokes an app on /account and the receiver gets a verified grant.revoked for that grant within seconds;
// the console's delivery log shows it delivered. "Send a test event" arrives. A receiver answering 500 makes a
// delivery fail (its retry window moved into the past in the database, instead of waiting a day), and Replay, once
// the receiver answers 200 again, delivers it with the same id. Rotating the secret signs with both secrets for the
// overlap. A viewer reads the pages without any of the buttons. Both pages are scanned with axe and photographed at
// desktop and phone width (390 px).
import fs from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import type { Locator, Page } from '@playwright/test'
import { Webhook } from 'standardwebhooks'
import { openStore } from '@gnap/domain/kernel'
import { createAdmin } from '@gnap/domain/operator'
import { loopbackCertificate } from '@gnap/test-support'
import { ADMIN, checkPage, expect, signInAsAdmin } from './support/admin-world'
import { startConsentWorld, type ConsentWorld } from './support/consent-world'
import { approvedGrant, worldTest } from './support/fixtures'

const VIEWER = { email: 'webhooks-viewer@example.com', password: 'webhooks-viewer-password', role: 'viewer' as const }

/** One POST the receiver got: its raw body and the Standard Webhooks headers, exactly as sent. */
interface Received {
  id: string
  timestamp: string
  signature: string
  raw: string
  body: { id: string; type: string; timestamp: string; data: Record<string, unknown> }
  /** What the receiver answered. */
  status: number
}

/**
 * The receiver of the test: https on 127.0.0.1, verifying each delivery with the library and `secret` (401 when it
 * does not verify, else `status`), recording every request.
 */
interface Receiver {
  url: string
  secret: string | null
  status: number
  requests: Received[]
  /** The first request (already received or still to come) that `match` accepts; fails after `timeoutMs`. */
  waitFor(match: (r: Received) => boolean, timeoutMs?: number): Promise<Received>
  close(): Promise<void>
}

/** Whether `r` verifies with `secret`, by the library's own verifier (signature and timestamp). */
function verifies(r: Received, secret: string): boolean {
  try {
    new Webhook(secret).verify(r.raw, { 'webhook-id': r.id, 'webhook-timestamp': r.timestamp, 'webhook-signature': r.signature })
    return true
  } catch {
    return false
  }
}

async function startReceiver(tls: { key: string; cert: string }): Promise<Receiver> {
  const waiters = new Set<{ match: (r: Received) => boolean; resolve: (r: Received) => void }>()
  const receiver: Receiver = {
    url: '',
    secret: null,
    status: 200,
    requests: [],
    waitFor(match, timeoutMs = 10_000) {
      const seen = receiver.requests.find(match)
      if (seen) return Promise.resolve(seen)
      return new Promise((resolve, reject) => {
        const waiter = { match, resolve: (r: Received) => (clearTimeout(timer), resolve(r)) }
        const timer = setTimeout(() => {
          waiters.delete(waiter)
          reject(new Error(`the receiver got no matching delivery within ${timeoutMs} ms (got ${receiver.requests.length} requests)`))
        }, timeoutMs)
        waiters.add(waiter)
      })
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  const server: Server = createServer(tls, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      const header = (name: string) => String(req.headers[name] ?? '')
      const r: Omit<Received, 'status'> = {
        id: header('webhook-id'),
        timestamp: header('webhook-timestamp'),
        signature: header('webhook-signature'),
        raw,
        body: JSON.parse(raw) as Received['body'],
      }
      const status = receiver.secret !== null && verifies({ ...r, status: 0 }, receiver.secret) ? receiver.status : 401
      const received = { ...r, status }
      receiver.requests.push(received)
      res.writeHead(status).end()
      for (const w of waiters) {
        if (w.match(received)) {
          waiters.delete(w)
          w.resolve(received)
        }
      }
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  receiver.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/gnap`
  return receiver
}

interface WebhookWorld extends ConsentWorld {
  receiver: Receiver
}

/**
 * The consent world (built-in consent screen, Alice and Bob), an administrator and a viewer, and the receiver. The
 * server may reach loopback (WEBHOOK_ALLOWED_NETWORKS) and trusts the receiver's self-signed certificate.
 */
async function startWebhookWorld(): Promise<WebhookWorld> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gnap-webhooks-e2e-'))
  const { key, cert } = loopbackCertificate(dir)
  const receiver = await startReceiver({ key: fs.readFileSync(key, 'utf8'), cert: fs.readFileSync(cert, 'utf8') })
  try {
    const world = await startConsentWorld({ WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', NODE_EXTRA_CA_CERTS: cert })
    const store = await openStore(`file:${world.server.dbFile}`)
    try {
      await createAdmin(store.sql, ADMIN)
      await createAdmin(store.sql, VIEWER)
    } finally {
      await store.close()
    }
    return {
      ...world,
      receiver,
      async stop() {
        await receiver.close()
        await world.stop()
        fs.rmSync(dir, { recursive: true, force: true })
      },
    }
  } catch (e) {
    await receiver.close()
    fs.rmSync(dir, { recursive: true, force: true })
    throw e
  }
}

const test = worldTest<WebhookWorld>(startWebhookWorld)

/** Alice revokes the app holding `grantId` on /account, confirming on its page; resolves when the page says so. */
async function revokeOnAccount(page: Page, world: ConsentWorld, grantId: string): Promise<void> {
  await page.goto(`${world.server.url}account`)
  await page.locator(`a[href="/account/apps/${encodeURIComponent(grantId)}/revoke"]`).click()
  await page.getByRole('button', { name: 'Revoke access' }).click()
  await expect(page.getByRole('status')).toHaveText('Access revoked. The app can no longer use your wallet.')
}

/** Presses Tab until `target` has the focus (at most `max` times): reaching a control from the keyboard alone. */
async function tabTo(page: Page, target: Locator, max = 25): Promise<void> {
  for (let i = 0; i < max && !(await target.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab')
  await expect(target).toBeFocused()
}

/** The delivery log's row of an event. */
const logRow = (page: Page, eventId: string) => page.getByRole('region', { name: 'Delivery log' }).getByRole('row').filter({ hasText: eventId })

/** Moves a delivery's retry window into the past and makes it due: its next failed attempt gives up (instead of in 24 h). */
async function endRetryWindow(dbFile: string, eventId: string): Promise<void> {
  const store = await openStore(`file:${dbFile}`)
  try {
    const past = new Date(Date.now() - 1000)
    const changed = await store.sql.run(
      `UPDATE "WebhookDelivery" SET "giveUpAt" = $1, "nextAttemptAt" = $1 WHERE "eventId" = $2 AND "state" = 'pending'`,
      [past, eventId],
    )
    expect(changed).toBe(1)
  } finally {
    await store.close()
  }
}

test.describe('webhooks in the admin console', () => {
  // The viewer reads what the administrator's test made: one world, in order.
  test.describe.configure({ mode: 'serial' })

  test('an administrator adds an endpoint from the keyboard; a revocation on /account, a test event and a replayed failure reach the receiver, verified', async ({
    page,
    browser,
    world,
  }, testInfo) => {
    // Two consents, four pages scanned at two widths, and a delivery through retry, failure and replay.
    test.setTimeout(240_000)
    const url = world.server.url
    const { receiver } = world
    const owner = await (await browser.newContext()).newPage()
    const first = await approvedGrant(owner, world)
    const second = await approvedGrant(owner, world)

    let endpointId = ''
    let secret = ''
    await test.step('the webhooks page, empty, from the console navigation', async () => {
      await signInAsAdmin(page, url)
      await expect(page).toHaveURL(`${url}admin`)
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Webhooks' }).click()
      await expect(page).toHaveURL(`${url}admin/webhooks`)
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Webhooks')
      await expect(page.getByText('No webhook endpoints yet.')).toBeVisible()
      await checkPage(page, testInfo, 'webhooks-empty')
    })

    await test.step('add an endpoint from the keyboard alone; with no event type it is refused in words', async () => {
      await page.getByLabel('URL').focus()
      await page.keyboard.type(receiver.url)
      await page.keyboard.press('Tab')
      await expect(page.getByLabel('Description (optional)')).toBeFocused()
      await page.keyboard.type('Billing: stop subscriptions')
      await page.keyboard.press('Enter')
      await expect(page.getByText('Choose at least one event type.')).toBeVisible()
      await expect(page.getByRole('checkbox', { name: /^grant\.approved/ })).toBeFocused()
      await tabTo(page, page.getByRole('checkbox', { name: /^grant\.revoked/ }))
      await page.keyboard.press('Space')
      await expect(page.getByRole('checkbox', { name: /^grant\.revoked/ })).toBeChecked()
      await expect(page.getByText('Choose at least one event type.')).toHaveCount(0)
      await tabTo(page, page.getByRole('button', { name: 'Add endpoint' }))
      await page.keyboard.press('Enter')
    })

    await test.step('the signing secret is shown once, with the warning; the receiver verifies with it', async () => {
      const shown = page.getByRole('region', { name: 'Endpoint added' })
      await expect(shown).toContainText(receiver.url)
      await expect(shown).toBeFocused()
      await expect(shown).toContainText('Copy the signing secret now: it will not be shown again.')
      secret = await shown.getByLabel('Signing secret', { exact: true }).inputValue()
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
      expect(page.url()).not.toContain(secret.slice('whsec_'.length, 20))
      receiver.secret = secret
      await checkPage(page, testInfo, 'webhooks-created')
      await shown.getByRole('button', { name: 'I have stored the secret' }).focus()
      await page.keyboard.press('Enter')
      await expect(page.getByRole('status').filter({ hasText: 'is ready' })).toBeFocused()
      await expect(page.getByLabel('Signing secret', { exact: true })).toHaveCount(0)
      await page.reload()
      const row = page.getByRole('row').filter({ hasText: receiver.url })
      await expect(row).toContainText('grant.revoked')
      await expect(row).toContainText('Billing: stop subscriptions')
      await expect(row).toContainText('Enabled')
      await expect(row).toContainText(ADMIN.email)
      expect(await page.content()).not.toContain(secret)
      await checkPage(page, testInfo, 'webhooks-list')
      await row.getByRole('link', { name: receiver.url }).click()
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Webhook endpoint')
      endpointId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '')
      expect(endpointId).not.toBe('')
      expect(await page.content()).not.toContain(secret)
      await expect(page.getByText('No deliveries yet.')).toBeVisible()
    })

    let revokedEvent = ''
    await test.step('the owner revokes an app on /account: the receiver gets a verified grant.revoked within seconds', async () => {
      const started = Date.now()
      await revokeOnAccount(owner, world, first.grantId)
      const got = await receiver.waitFor((r) => r.body.type === 'grant.revoked' && (r.body.data.grant as { id: string }).id === first.grantId)
      expect(Date.now() - started).toBeLessThan(10_000)
      expect(verifies(got, secret)).toBe(true)
      expect(got.status).toBe(200)
      expect(got.body.id).toBe(got.id)
      expect(got.body.data).toMatchObject({
        grant: { id: first.grantId, client: { wallet_address: world.walletAddress } },
        revoked_tokens: 1,
        actor: { type: 'owner' },
      })
      // Ids only: never the token's value.
      expect(got.raw).not.toContain(first.token.value)
      revokedEvent = got.id
    })

    await test.step("the console's delivery log shows it delivered, with a link to its grant", async () => {
      // The log refreshes by itself every few seconds; Refresh does it now.
      await page.getByRole('button', { name: 'Refresh' }).click()
      const row = logRow(page, revokedEvent)
      await expect(row).toContainText('grant.revoked')
      await expect(row).toContainText('Delivered')
      await expect(row).toContainText('HTTP 200')
      await expect(row.getByRole('link', { name: first.grantId })).toHaveAttribute('href', `/admin/grants/${first.grantId}`)
      await checkPage(page, testInfo, 'webhook-endpoint')
    })

    await test.step('"Send a test event", from the keyboard, arrives verified', async () => {
      await page.getByRole('button', { name: 'Send a test event' }).focus()
      await page.keyboard.press('Enter')
      const notice = page.getByRole('status').filter({ hasText: 'Test event' })
      await expect(notice).toBeFocused()
      const got = await receiver.waitFor((r) => r.body.type === 'webhook.test')
      expect(verifies(got, secret)).toBe(true)
      expect(got.body.data).toMatchObject({ endpoint_id: endpointId, actor: { type: 'administrator' } })
      await expect(notice).toContainText(got.id)
      await expect(logRow(page, got.id)).toContainText('Delivered')
    })

    let failedEvent = ''
    await test.step('a receiver answering 500: the delivery is retried, then failed once its retry window is over', async () => {
      receiver.status = 500
      await revokeOnAccount(owner, world, second.grantId)
      const got = await receiver.waitFor((r) => r.body.type === 'grant.revoked' && (r.body.data.grant as { id: string }).id === second.grantId)
      expect(got.status).toBe(500)
      failedEvent = got.id
      await page.getByRole('button', { name: 'Refresh' }).click()
      const row = logRow(page, failedEvent)
      // Recorded as a failed attempt, to be retried later.
      await expect(row).toContainText('Pending')
      await expect(row).toContainText('HTTP 500')
      await expect(row).toContainText('the endpoint answered 500')
      await endRetryWindow(world.server.dbFile, failedEvent)
      await expect(row).toContainText('Failed')
      expect(receiver.requests.filter((r) => r.id === failedEvent)).toHaveLength(2)

      await page.getByLabel('State').selectOption('failed')
      await page.getByRole('button', { name: 'Show' }).click()
      await expect(page).toHaveURL(`${url}admin/webhooks/${encodeURIComponent(endpointId)}?state=failed`)
      await expect(page.getByRole('region', { name: 'Delivery log' }).getByRole('row')).toHaveCount(2)
      await expect(logRow(page, failedEvent)).toContainText('Failed')
      await checkPage(page, testInfo, 'webhook-endpoint-failed')
    })

    await test.step('Replay, from the keyboard, once the receiver answers 200: delivered, with the same id', async () => {
      receiver.status = 200
      const replay = page.getByRole('button', { name: `Replay the grant.revoked event ${failedEvent}` })
      await replay.focus()
      await page.keyboard.press('Enter')
      await expect(page.getByRole('status').filter({ hasText: 'queued again' })).toBeFocused()
      const got = await receiver.waitFor((r) => r.id === failedEvent && r.status === 200)
      expect(verifies(got, secret)).toBe(true)
      await page.getByLabel('State').selectOption('')
      await page.getByRole('button', { name: 'Show' }).click()
      const row = logRow(page, failedEvent)
      await expect(row).toContainText('Delivered')
      // A replay counts its attempts from 0 again (its retries start again from the shortest wait).
      await expect(row.getByRole('cell').nth(3)).toHaveText('1')
      expect(receiver.requests.filter((r) => r.id === failedEvent).map((r) => r.status)).toEqual([500, 500, 200])
      await expect(page.getByRole('button', { name: /^Replay/ })).toHaveCount(0)
    })

    await test.step('rotating the secret shows the new one once; during the overlap each delivery verifies with both', async () => {
      await page.getByLabel('Hours the old secret keeps working').fill('24')
      await page.getByRole('button', { name: 'Rotate secret' }).click()
      const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' })
      await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused()
      await dialog.getByRole('button', { name: 'Rotate secret' }).click()
      const shown = page.getByRole('region', { name: 'The new signing secret' })
      await expect(shown).toBeFocused()
      await expect(shown).toContainText('Copy the signing secret now: it will not be shown again.')
      const rotated = await shown.getByLabel('Signing secret', { exact: true }).inputValue()
      expect(rotated).toMatch(/^whsec_/)
      expect(rotated).not.toBe(secret)
      receiver.secret = rotated
      await shown.getByRole('button', { name: 'I have stored the secret' }).click()
      await expect(page.getByLabel('Signing secret', { exact: true })).toHaveCount(0)
      await page.getByRole('button', { name: 'Send a test event' }).click()
      const got = await receiver.waitFor((r) => r.body.type === 'webhook.test' && verifies(r, rotated))
      expect(verifies(got, secret)).toBe(true)
      expect(got.signature.split(' ')).toHaveLength(2)
    })

    await test.step('the audit log names every change, and no secret', async () => {
      await page.goto(`${url}admin/audit?target=${encodeURIComponent(`webhook:${endpointId}`)}`)
      const entries = page.getByRole('table')
      for (const action of [
        'Added a webhook endpoint',
        'Sent a webhook test event',
        'Replayed a webhook delivery',
        'Rotated a webhook signing secret',
      ]) {
        await expect(entries.getByText(action).first()).toBeVisible()
      }
      const html = await page.content()
      expect(html).not.toContain(secret)
      expect(html).not.toContain(receiver.secret ?? 'no secret')
    })
    await owner.context().close()
  })

  test('a viewer reads the endpoints and the delivery log, without a button that changes them', async ({ page, world }, testInfo) => {
    const url = world.server.url
    await signInAsAdmin(page, url, VIEWER)
    await expect(page).toHaveURL(`${url}admin`)
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Webhooks' }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Webhooks')
    await expect(page.getByText('Only administrators with the admin role add or change endpoints.')).toBeVisible()
    await expect(page.getByRole('button', { name: 'Add endpoint' })).toHaveCount(0)
    const link = page.getByRole('link', { name: world.receiver.url })
    await expect(link).toBeVisible()
    await link.press('Enter')
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Webhook endpoint')
    await expect(page.getByRole('region', { name: 'Delivery log' }).getByRole('row').filter({ hasText: 'Delivered' }).first()).toBeVisible()
    for (const name of ['Send a test event', 'Rotate secret', 'Edit endpoint', 'Disable endpoint', 'Delete endpoint', /^Replay/]) {
      await expect(page.getByRole('button', { name })).toHaveCount(0)
    }
    await checkPage(page, testInfo, 'webhook-endpoint-viewer')
  })

  test('the webhook pages redirect to sign-in without a session', async ({ page, world }) => {
    const url = world.server.url
    for (const p of ['admin/webhooks', 'admin/webhooks/some-endpoint']) {
      await page.goto(`${url}${p}`)
      await expect(page, p).toHaveURL(`${url}admin/sign-in`)
    }
  })
})
