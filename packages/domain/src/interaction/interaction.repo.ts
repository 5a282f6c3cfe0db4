import type { DbTx } from '../db/client'
import { isId } from '../secrets'

/** An interaction by its id and AS nonce (both appear in the owner's URL), with its grant. */
export async function findInteraction(db: DbTx, id: string, nonce: string) {
  if (!isId(id)) return null
  const interaction = await db.interaction.findUnique({
    where: { id },
    include: { grant: { include: { accessItems: { orderBy: { position: 'asc' } } } } },
  })
  return interaction && interaction.nonce === nonce ? interaction : null
}

export type InteractionWithGrant = NonNullable<Awaited<ReturnType<typeof findInteraction>>>
