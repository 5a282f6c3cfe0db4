// A webhook receiver (docs/webhooks.md): it trusts a delivery only once the Standard Webhooks library has verified
// its signature and timestamp with the endpoint's secret, answers 204 then, and 400 to anything it cannot verify.
// Prints one line per request: `verified <type> <id>` or `refused <reason>`.
//
//   WEBHOOK_SECRET=whsec_… PORT=4000 node examples/webhook-receiver.mjs
//
// The secret is the one the console (or the operator API) showed when the endpoint was created or its secret rotated.
import http from 'node:http'
import { Webhook } from 'standardwebhooks'

const secret = process.env.WEBHOOK_SECRET
if (!secret) {
  console.error('set WEBHOOK_SECRET to the endpoint’s signing secret (whsec_…)')
  process.exit(1)
}
const webhook = new Webhook(secret)

const server = http.createServer(async (req, res) => {
  let event
  try {
    const chunks = []
    for await (const chunk of req) chunks.push(chunk)
    // Checks webhook-id, webhook-timestamp (at most 5 minutes off) and webhook-signature over the exact bytes received.
    event = webhook.verify(Buffer.concat(chunks), req.headers)
  } catch (e) {
    console.log(`refused ${e instanceof Error ? e.message : String(e)}`)
    res.writeHead(400).end()
    return
  }
  // The same event can arrive twice (at-least-once): a real receiver skips an id it has already handled.
  console.log(`verified ${event?.type} ${event?.id}`)
  res.writeHead(204).end()
})

server.listen(Number(process.env.PORT ?? 4000), process.env.HOST ?? '127.0.0.1', () => {
  console.log(`listening on http://${process.env.HOST ?? '127.0.0.1'}:${server.address().port}/`)
})
