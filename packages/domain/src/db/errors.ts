/** Prisma's unique-constraint failure (P2002), whichever adapter raised it. */
export function isUniqueViolation(e: unknown): boolean {
  return typeof e === 'object' && e !== null && 'code' in e && (e as { code: unknown }).code === 'P2002'
}
