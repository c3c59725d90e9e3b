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
export function toggleLabels(ctx: ServiceContext, caller: Caller, cardId: string, scope: Scope, labelIds: readonly string[]): Promise<Card> {
  rejectRepeatedIds(labelIds, 'body.labels');
  return changeCard(ctx, caller, cardId, scope, 'card.labels.toggled', async (trx, card, at) => {
    try {
      // an unknown id is refused after the toggle: the refusal rolls the whole transaction back
      return labelToggle(labelIds, await cards.toggleBoardLabels(trx, card, labelIds, at));
    } catch (error) {
      // a label deleted since it was read: run again, and the check names it
      throw error instanceof ForeignKeyViolation ? new ChangedMeanwhile('A label') : error;
    }
  });
}

/**
 * What toggling `labelIds` does, given which of them are labels of the card's board and whether the
 * card has each (`onBoard`): a 400 naming every id that is no label of the board, else the labels to
 * add and to remove.
 */
function labelToggle(labelIds: readonly string[], onBoard: ReadonlyMap<string, boolean>) {
  const unknown = labelIds.flatMap((id, index) =>
    onBoard.has(id) ? [] : [{ field: `body.labels[${index}]`, index, message: `no label ${id} on this card's board` }],
  );
  if (unknown.length) throw new ValidationError(`Unknown label: ${unknown.map((u) => labelIds[u.index]).join(', ')}`, unknown);
  return { added: labelIds.filter((id) => !onBoard.get(id)), removed: labelIds.filter((id) => onBoard.get(id)) };
}
