import type { Card } from '../../schemas/records.ts';
import * as cards from '../../storage/repositories/cards.ts';
import { requireAccess, requireCardVersion } from '../access/access.ts';
import type { ServiceContext } from '../context.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { NotFoundError, ValidationError } from '../shared/errors.ts';
import { nowIso } from '../shared/ids.ts';
import type { PositionRequest } from '../shared/positions.ts';
import { ChangedMeanwhile, inTransaction } from '../shared/transaction.ts';
import { lockList, placeCard } from './locks.ts';
import { recordCardChange } from './recorder.ts';
import { loadCard } from './service.ts';

const OTHER_BOARD = {
  field: 'body.list',
  message: "must be a list of the card's board (PATCH /api/v1/cards/move-multi-team moves cards to another board)",
};

/**
 * Reorder Card Position: puts the card at `position` (an index among the list's other cards that
 * share its archived state, as Get List Card shows them; "top"; "bottom") of its own list or of
 * `list`, another list of the same board. The other cards keep their order; when their numbers
 * have to be spread again, each renumbered card is a change of that card too.
 *
 * Locks (the rule of access/access.ts): the target list, then the card together with any card the
 * placement renumbers. The card's list and state are read before its lock, so they are checked
 * again under it: a card moved out of its list (when no `list` is given) or (un)archived meanwhile
 * makes the request start over.
 */
export function reorderCard(
  ctx: ServiceContext,
  caller: Caller,
  cardId: string,
  scope: Scope,
  input: { position: PositionRequest; list?: string | undefined },
): Promise<Card> {
  return inTransaction(ctx, async (trx) => {
    const before = await requireAccess(trx, caller, { kind: 'card', id: cardId, scope });
    const target = await requireAccess(trx, caller, { kind: 'list', id: input.list ?? before.list_id });
    if (target.board_id !== before.board_id) throw new ValidationError('The list is on another board than the card', [OTHER_BOARD]);
    const archived = Boolean(Number(before.archived));
    const at = nowIso();
    if (!(await lockList(trx, target.id))) throw new NotFoundError('List');
    const position = await placeCard(trx, caller, target.id, input.position, at, { cardId, archived, alsoLocking: [cardId] });
    const card = await cards.lockCard(trx, cardId);
    if (!card) throw new NotFoundError('Card');
    requireCardVersion(trx, caller, card);
    // placed among the wrong cards: those of the list it has left, or of its former archived state
    const moved = input.list === undefined && card.list_id !== target.id;
    if (moved || Boolean(Number(card.archived)) !== archived) throw new ChangedMeanwhile('The card');
    if (card.board_id !== target.board_id) throw new ValidationError('The card has moved to another board', [OTHER_BOARD]);
    await cards.setCardColumns(trx, cardId, { list_id: target.id, position });
    const data = { from: { list: card.list_id, position: card.position }, to: { list: target.id, position } };
    await recordCardChange(trx, { ...card, list_id: target.id }, { caller, kind: 'card.moved', at, data });
    return loadCard(ctx, cardId, trx);
  });
}
