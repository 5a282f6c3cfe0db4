'use client'

import { createContext, useContext, type ReactNode } from 'react'
import { roleAllows, type AdminRole } from '@gnap/domain/roles'

// The signed-in administrator's role, for hiding what they may not do (docs/protocol.md §2.14). Only a courtesy:
// the server refuses every procedure below its role, whatever the page shows.

const RoleContext = createContext<{ id: string; role: AdminRole } | null>(null)

export function RoleProvider({ admin, children }: { admin: { id: string; role: AdminRole }; children: ReactNode }) {
  return <RoleContext.Provider value={admin}>{children}</RoleContext.Provider>
}

/** Whether the signed-in administrator's role allows what `needed` may do. */
export function useCan(needed: AdminRole): boolean {
  const admin = useContext(RoleContext)
  return admin !== null && roleAllows(admin.role, needed)
}

/** The signed-in administrator's id (to tell them apart in the administrators list). */
export function useSignedInAdminId(): string | null {
  return useContext(RoleContext)?.id ?? null
}

/** Its children only for `role` and above. */
export function ForRole({ role, children }: { role: AdminRole; children: ReactNode }) {
  return useCan(role) ? children : null
}
