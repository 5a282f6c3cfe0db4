'use client'

import { useState, type ReactNode } from 'react'
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { createTRPCClient, httpBatchLink, httpLink, splitLink } from '@trpc/client'
import { createTRPCContext } from '@trpc/tanstack-react-query'
import type { AppRouter } from '@gnap/api'
import { transformer } from '@gnap/api/transformer'
import { isUnbatchable, MAX_BATCH_SIZE } from '@gnap/api/batching'
import { errorCode, isUnauthorized } from './errors'

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>()

/** The header mutations carry the session's CSRF token in (`CSRF_HEADER` of @gnap/api, not imported: server code). */
const CSRF_HEADER = 'x-csrf-token'

export const SIGN_IN_PATH = '/admin/sign-in'

/**
 * Set while this page signs its own session out. Queries still in flight then come back UNAUTHORIZED, and taking
 * them for a session that ended elsewhere would send the person to "Your session has ended" instead of "You are
 * signed out" (the later navigation wins).
 */
let signingOut = false

/** A sign-out of this session (the Sign out button, signing oneself out everywhere) sets it before its request, and clears it if that fails. */
export function setSigningOut(value: boolean) {
  signingOut = value
}

/** A session that ended while a page was open (expired, signed out elsewhere): back to the sign-in page. */
export function toSignIn() {
  if (!signingOut) window.location.assign(`${SIGN_IN_PATH}?ended=1`)
}

/** This page signed its session out: to the sign-in page, which says so. */
export function toSignedOut() {
  window.location.assign(`${SIGN_IN_PATH}?signed-out=1`)
}

/**
 * TanStack Query and the tRPC client of the console. `csrfToken` is the session's token, rendered into the page by
 * the admin layout (server side); null on the sign-in page, whose only mutation needs none.
 */
export function AdminProviders({ csrfToken, children }: { csrfToken: string | null; children: ReactNode }) {
  // On the sign-in page (no token) an UNAUTHORIZED answer is a wrong password, shown by the form.
  const sessionEnded = (e: unknown) => {
    if (csrfToken !== null && isUnauthorized(e)) toSignIn()
  }
  const [queryClient] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: {
            // A page opened, or the window come back to, asks again: what it shows may have changed elsewhere (an
            // invitee set their password, another administrator revoked a grant). It shows what it had meanwhile;
            // components that mount together share one request.
            staleTime: 0,
            refetchOnMount: true,
            refetchOnWindowFocus: true,
            // An answer of the server (not found, refused…) will not change on a retry; a lost connection may.
            retry: (count, error) => errorCode(error) === null && count < 2,
          },
        },
        queryCache: new QueryCache({ onError: (e) => sessionEnded(e) }),
        mutationCache: new MutationCache({ onError: (e) => sessionEnded(e) }),
      }),
  )
  const headers = () => (csrfToken ? { [CSRF_HEADER]: csrfToken } : {})
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      // The server refuses batches naming `auth.*` and caps the others at MAX_BATCH_SIZE procedures.
      links: [
        splitLink({
          condition: (op) => isUnbatchable(op.path),
          true: httpLink({ url: '/api/trpc', transformer, headers }),
          false: httpBatchLink({ url: '/api/trpc', transformer, headers, maxItems: MAX_BATCH_SIZE }),
        }),
      ],
    }),
  )
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  )
}
