import type { Card } from '../../schemas/records.ts';
import { lockList } from '../../storage/repositories/card-copies.ts';
import * as cards from '../../storage/repositories/cards.ts';
import { findListById } from '../../storage/repositories/lists.ts';
import type { ServiceContext } from '../context.ts';
import { type Caller, requireReach, type Scope } from '../shared/caller.ts';
import { NotFoundError, ValidationError } from '../shared/errors.ts';
import { nowIso } from '../shared/ids.ts';
import { type PositionRequest, place } from '../shared/positions.ts';
import { loadCard, reachableCard } from './service.ts';

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
 * Locks: the target list first, then the card. Two reorders in one list thus queue on the list
 * before either holds a card, so a renumbering (which writes the sibling cards) never waits for a
 * card that a queued reorder holds.
 */
export function reorderCard(
  ctx: ServiceContext,
  caller: Caller,
  cardId: string,
  scope: Scope,
  input: { position: PositionRequest; list?: string | undefined },
): Promise<Card> {
  return ctx.db.transaction().execute(async (trx) => {
    const before = await reachableCard(trx, caller, cardId, scope);
    const target = requireReach(caller, await findListById(trx, input.list ?? before.list_id), 'List');
    if (target.board_id !== before.board_id) throw new ValidationError('The list is on another board than the card', [OTHER_BOARD]);
    await lockList(trx, target.id);
    const at = nowIso();
    await cards.recordCardChange(trx, cardId, at);
    // Read again under the card's lock: a concurrent request may have moved it meanwhile.
    const card = await cards.findCard(trx, cardId);
    if (!card) throw new NotFoundError('Card');
    if (card.board_id !== target.board_id) throw new ValidationError('The card has moved to another board', [OTHER_BOARD]);
    const listId = input.list ?? card.list_id;
    if (listId !== target.id) await lockList(trx, listId);

    const siblings = await cards.cardPositionsInListByState(trx, listId, Boolean(Number(card.archived)), cardId);
    const placement = place(
      siblings.map((s) => s.position),
      input.position,
    );
    for (const [i, position] of (placement.renumbered ?? []).entries()) {
      const sibling = siblings[i] as { id: string };
      await cards.recordCardChange(trx, sibling.id, at);
      await cards.setCardPosition(trx, sibling.id, position);
    }
    await cards.setCardColumns(trx, cardId, { list_id: listId, position: placement.position });
    return loadCard(ctx, cardId, trx);
  });
}
