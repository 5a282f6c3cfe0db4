import type { DbTx } from '../db/client'

/** An interaction by its id and AS nonce (both appear in the owner's URL), with its grant. */
export async function findInteraction(db: DbTx, id: string, nonce: string) {
  const interaction = await db.interaction.findUnique({
    where: { id },
    include: { grant: { include: { accessItems: { orderBy: { position: 'asc' } } } } },
  })
  return interaction && interaction.nonce === nonce ? interaction : null
}

export type InteractionWithGrant = NonNullable<Awaited<ReturnType<typeof findInteraction>>>
