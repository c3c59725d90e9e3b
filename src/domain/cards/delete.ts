/**
 * Delete Card and Delete Cards Multi Team: a card goes at once, in one transaction, with everything
 * it keeps (checklists, items, comments, discussions, cheers, attachment records, members, labels,
 * seen marks). Its files are released to the purge (src/domain/attachments/purge.ts), which removes
 * them with the deleted attachments' files: never while a request may still be serving them.
 */

import type * as cards from '../../storage/repositories/cards.ts';
import { removeCards } from '../../storage/repositories/lifecycle.ts';
import { type CardRef, requireAccessToEach } from '../access/access.ts';
import type { ServiceContext } from '../context.ts';
import { dropRelationsOf } from '../relations/relations.ts';
import { rejectRepeatedIds } from '../shared/bulk.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { nowIso } from '../shared/ids.ts';
import { inTransaction } from '../shared/transaction.ts';
import { changeCardWorld } from './change.ts';
import { lockCardRows } from './locks.ts';
import { recordCardChange } from './recorder.ts';

/** What a `card.deleted` event keeps of the card: it cannot be read back afterwards. */
function describeDeleted(row: cards.CardTableRow) {
  return { name: row.name, list: row.list_id };
}

/** Delete Card: team members (those who reach the card). */
export function deleteCard(ctx: ServiceContext, caller: Caller, cardId: string, scope: Scope): Promise<{ _id: string }> {
  return changeCardWorld(ctx, caller, { kind: 'card', id: cardId, scope }, 'card.deleted', async (trx, { card }, at) => {
    await dropRelationsOf(trx, caller, [card.id], at);
    await removeCards(trx, [card.id], at);
    return { data: describeDeleted(card), answer: async () => ({ _id: card.id }) };
  });
}

/** Delete Cards Multi Team: each item names the company and team its card is in; all or nothing. */
export async function deleteCardsMultiTeam(
  ctx: ServiceContext,
  caller: Caller,
  items: readonly (CardRef['scope'] & { cardId: string })[],
): Promise<{ _id: string }[]> {
  const cardIds = items.map((item) => item.cardId);
  rejectRepeatedIds(cardIds, 'body.cards');
  return inTransaction(ctx, async (trx) => {
    const at = nowIso();
    const rows = await lockCardRows(trx, cardIds, 'skip');
    const reached = await requireAccessToEach(trx, caller, { items, field: 'body.cards', refOf: (item) => ({ cardId: item.cardId, scope: item }), rows });
    await dropRelationsOf(trx, caller, cardIds, at);
    await removeCards(trx, cardIds, at);
    for (const card of [...reached].sort((a, b) => (a.id < b.id ? -1 : 1))) {
      await recordCardChange(trx, card, { caller, kind: 'card.deleted', at, data: describeDeleted(card) });
    }
    return cardIds.map((_id) => ({ _id }));
  });
}
