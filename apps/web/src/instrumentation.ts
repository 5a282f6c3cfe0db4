// Runs once when the server starts. The Node.js part lives in its own module, imported only under the Node.js
// runtime, so the edge compilation of this file never sees process.exit, process.send or node: modules.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    const { registerNode } = await import('./instrumentation-node')
    await registerNode()
  }
}
