// The wire transformer of the tRPC API (Dates cross as Dates), for the browser's client: it must match the
// server's (trpc.ts). A subpath of its own so client bundles import only superjson, never the routers.
export { default as transformer } from 'superjson'
