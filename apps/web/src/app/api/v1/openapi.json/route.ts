import { openApiDocument } from '@gnap/api'
import { serverUrl } from '@gnap/domain/kernel'
import { readConfig } from '../../../../env'

// The OpenAPI 3.1 document of the REST form (docs/protocol.md §2.18), generated from the procedures it serves.
// Built once: it depends only on the code and the public URL.

let document: string | null = null

export function GET(): Response {
  document ??= JSON.stringify(openApiDocument(serverUrl(readConfig().config, 'api', 'v1')))
  return new Response(document, { headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' } })
}
