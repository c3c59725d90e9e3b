import type { Card } from '../../schemas/records.ts';
import { ForeignKeyViolation } from '../../storage/errors.ts';
import { toggleCardLabelsAfterChange } from '../../storage/repositories/card-records.ts';
import * as cards from '../../storage/repositories/cards.ts';
import type { ServiceContext } from '../context.ts';
import type { PendingEvent } from '../events/record.ts';
import { rejectRepeatedIds } from '../shared/bulk.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { NotFoundError, ValidationError } from '../shared/errors.ts';
import { ChangedMeanwhile } from '../shared/transaction.ts';
import { changeCardAlong, changeCardNow } from './change.ts';
import { toCard } from './records.ts';

/**
 * Toggles every label of the request on the card, all or none: each is added if absent, removed if
 * present. Every id must name a label of the card's board, read under the card's lock (a card moved
 * to another board meanwhile is checked against its new board); the first that does not rejects the
 * whole request. One request is one change of the card (`__v` + 1). Where the storage has a group
 * commit, the whole toggle runs there, synchronously; elsewhere the label read, the
 * writes and the card's record are one statement, sent with the card's change.
 */
export function toggleLabels(ctx: ServiceContext, caller: Caller, cardId: string, scope: Scope, labelIds: readonly string[]): Promise<Card> {
  rejectRepeatedIds(labelIds, 'body.labels');
  const kind = 'card.labels.toggled';
  return (
    changeCardNow(ctx, caller, cardId, scope, kind, (trx, card, at, event) => {
      const toggle = labelToggle(labelIds, cards.boardLabelsOnCardNow(trx, card.board_id, cardId, labelIds), event);
      cards.toggleCardLabelsNow(trx, cardId, toggle, at);
    }) ??
    changeCardAlong(
      ctx,
      caller,
      cardId,
      scope,
      kind,
      async (trx, at) => {
        // one statement reads, writes and answers the record, sent with the card's change
        const toggled = await toggleCardLabelsAfterChange(trx, cardId, labelIds, at);
        return () =>
          toggled().catch((error: unknown) => {
            // a label deleted while this statement ran: run again, and the check names it
            throw error instanceof ForeignKeyViolation ? new ChangedMeanwhile('A label') : error;
          });
      },
      (toggled, event) => {
        // an unknown id's 400 rolls the writes back
        labelToggle(labelIds, toggled.onBoard, event);
        if (!toggled.card) throw new NotFoundError('Card');
        return toCard(toggled.card);
      },
    )
  );
}

/**
 * What toggling `labelIds` does, given which of them are labels of the card's board and whether the
 * card has each (`onBoard`): a 400 naming every id that is no label of the board, else the labels to
 * add and to remove, also written into the change's event.
 */
function labelToggle(labelIds: readonly string[], onBoard: ReadonlyMap<string, boolean>, event: PendingEvent) {
  const unknown = labelIds.flatMap((id, index) =>
    onBoard.has(id) ? [] : [{ field: `body.labels[${index}]`, index, message: `no label ${id} on this card's board` }],
  );
  if (unknown.length) throw new ValidationError(`Unknown label: ${unknown.map((u) => labelIds[u.index]).join(', ')}`, unknown);
  const removed = labelIds.filter((id) => onBoard.get(id));
  const added = labelIds.filter((id) => !onBoard.get(id));
  Object.assign(event.data, { added, removed });
  return { added, removed };
}
