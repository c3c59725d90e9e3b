/**
 * Delete Card and Delete Cards Multi Team: a card goes at once, in one transaction, with everything
 * it keeps (checklists, items, comments, discussions, cheers, attachment records, members, labels,
 * seen marks). Its files are released to the purge (src/domain/attachments/purge.ts), which removes
 * them with the deleted attachments' files: never while a request may still be serving them.
 */

import type { Transaction } from '../../storage/database.ts';
import * as cards from '../../storage/repositories/cards.ts';
import { removeCards } from '../../storage/repositories/lifecycle.ts';
import { type CardRef, requireAccess, requireAccessToEach } from '../access/access.ts';
import type { ServiceContext } from '../context.ts';
import { pendingEvents } from '../events/record.ts';
import { rejectRepeatedIds } from '../shared/bulk.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { nowIso } from '../shared/ids.ts';
import { inTransaction } from '../shared/transaction.ts';
import { recordCardChanges } from './recorder.ts';

/** What a `card.deleted` event keeps of the card: it cannot be read back afterwards. */
function describeDeleted(trx: Transaction, rows: readonly cards.CardTableRow[]): void {
  const byId = new Map(rows.map((row) => [row.id, row]));
  for (const event of pendingEvents(trx)) {
    const row = event.type === 'card.deleted' && event.card ? byId.get(event.card) : undefined;
    if (row) Object.assign(event.data, { name: row.name, list: row.list_id });
  }
}

/** Delete Card: team members (those who reach the card). */
export async function deleteCard(ctx: ServiceContext, caller: Caller, cardId: string, scope: Scope): Promise<{ _id: string }> {
  return inTransaction(ctx, async (trx) => {
    const at = nowIso();
    const card = await requireAccess(trx, caller, { kind: 'card', id: cardId, scope, lock: true, at, change: 'card.deleted' });
    describeDeleted(trx, [card]);
    await removeCards(trx, [card.id], at);
    return { _id: card.id };
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
    await recordCardChanges(trx, cardIds, { caller, kind: 'card.deleted', at }, 'skip');
    const rows = await cards.findCardsById(trx, cardIds);
    const reached = await requireAccessToEach(trx, caller, { items, field: 'body.cards', refOf: (item) => ({ cardId: item.cardId, scope: item }), rows });
    describeDeleted(trx, reached);
    await removeCards(trx, cardIds, at);
    return cardIds.map((_id) => ({ _id }));
  });
}
