// Runs once when the server starts: validates the settings and opens the database, so a bad setting stops the
// server with a message naming it instead of failing the first request.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return
  const { getDeps } = await import('./server/deps')
  const { startRetentionJob } = await import('@gnap/domain')
  try {
    const deps = await getDeps()
    // Deletes dead token rows, expired signature nonces and old rate-limit counters in small batches, in the
    // background of this process (unref'd timers: they never hold a shutdown).
    startRetentionJob(deps)
    deps.log.info({ authServer: deps.config.authServerUrl }, 'authorization server ready')
  } catch (e) {
    console.error(e instanceof Error ? e.message : String(e))
    process.exit(1)
  }
}
