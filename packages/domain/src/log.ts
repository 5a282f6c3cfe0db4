import pino, { type Logger } from 'pino'

/**
 * Structured logs. Secrets are never passed to the logger by our code; redaction is a second line of defence
 * for anything that carries headers or bodies (PROTOCOL.md §8.9).
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: {
        paths: [
          'authorization',
          '*.authorization',
          'headers.authorization',
          'headers.signature',
          'headers["x-idp-secret"]',
          '*.value',
          'access_token',
          '*.access_token',
          'continue.access_token',
          'interact_ref',
          '*.interact_ref',
          'hash',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  )
}
