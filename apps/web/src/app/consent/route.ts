import { htmlPage } from '../../server/front-channel'

export const dynamic = 'force-dynamic'

// Where owners land when the server runs with local defaults and no identity provider is configured.
export function GET(): Response {
  return htmlPage(
    200,
    'No consent screen configured',
    'This authorization server runs without an identity provider. The operator must set IDENTITY_SERVER_URL and IDENTITY_SERVER_SECRET to the identity provider that shows owners their grants; until then, interactive grants can only be approved through the identity-provider API.',
  )
}
