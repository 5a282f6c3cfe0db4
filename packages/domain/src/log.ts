import pino, { type Logger } from 'pino'

/**
 * Structured logs. Secrets are never passed to the logger by our code; redaction is a second line of defence
 * for anything that carries headers or bodies (docs/protocol.md §8.9).
 *
 * By default lines go to stdout asynchronously: a request never waits for a write to the terminal or a pipe.
 * pino flushes what is buffered when the process exits; a crash may lose the last lines.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: {
        paths: [
          // credentials in headers, wherever a header bag is logged
          'authorization',
          '*.authorization',
          'headers.authorization',
          'headers.signature',
          'headers.cookie',
          'headers["set-cookie"]',
          'headers["x-idp-secret"]',
          '*.headers.authorization',
          '*.headers.signature',
          '*.headers.cookie',
          '*.headers["set-cookie"]',
          '*.headers["x-idp-secret"]',
          'signature',
          '*.signature',
          'cookie',
          '*.cookie',
          // token values, continuation tokens, interaction references and finish hashes (GNAP wire names)
          'value',
          '*.value',
          'access_token',
          '*.access_token',
          'continue.access_token',
          'interact_ref',
          '*.interact_ref',
          'interactRef',
          '*.interactRef',
          'hash',
          '*.hash',
          // secrets by the names the code gives them (settings, sessions, passwords)
          'token',
          '*.token',
          'session',
          '*.session',
          'password',
          '*.password',
          'csrf',
          '*.csrf',
          'idpSecret',
          '*.idpSecret',
          'introspectionSecrets',
          '*.introspectionSecrets',
          'identityServerSecrets',
          '*.identityServerSecrets',
        ],
        censor: '[redacted]',
      },
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  )
}
