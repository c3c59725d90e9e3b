import type { Card } from '../../schemas/records.ts';
import { ForeignKeyViolation } from '../../storage/errors.ts';
import * as cards from '../../storage/repositories/cards.ts';
import type { ServiceContext } from '../context.ts';
import { rejectRepeatedIds } from '../shared/bulk.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { ValidationError } from '../shared/errors.ts';
import { ChangedMeanwhile } from '../shared/transaction.ts';
import { changeCard } from './change.ts';

/**
 * Toggles every label of the request on the card, all or none: each is added if absent, removed if
 * present. Every id must name a label of the card's board, read under the card's lock (a card moved
 * to another board meanwhile is checked against its new board); the first that does not rejects the
 * whole request. One request is one change of the card (`__v` + 1).
 */
export function toggleLabels(
  ctx: ServiceContext,
  caller: Caller,
  cardId: string,
  scope: Scope,
  labelIds: readonly string[],
): Promise<Card> {
  rejectRepeatedIds(labelIds, 'body.labels');
  return changeCard(ctx, caller, cardId, scope, 'card.labels.toggled', async (trx, card, at, event) => {
    const onBoard = await cards.boardLabelsAmong(trx, card.board_id, labelIds);
    const unknown = labelIds.flatMap((id, index) =>
      onBoard.has(id) ? [] : [{ field: `body.labels[${index}]`, index, message: `no label ${id} on this card's board` }],
    );
    if (unknown.length) throw new ValidationError(`Unknown label: ${unknown.map((u) => labelIds[u.index]).join(', ')}`, unknown);

    const present = new Set(await cards.cardLabelIds(trx, cardId));
    const removed = labelIds.filter((id) => present.has(id));
    const added = labelIds.filter((id) => !present.has(id));
    Object.assign(event.data, { added, removed });
    await cards.removeCardLabels(trx, cardId, removed);
    await cards.addCardLabels(trx, cardId, added, at).catch((error: unknown) => {
      // a label deleted since the check above: run again, and the check names it
      throw error instanceof ForeignKeyViolation ? new ChangedMeanwhile('A label') : error;
    });
  });
}
