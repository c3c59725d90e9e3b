/**
 * Card relations (docs/decisions/0291): blocks / is blocked by, relates to, duplicates / is
 * duplicated by, between any two cards of one company the caller reaches, on any board or team.
 *
 * A new or removed relation is a change of both cards through the change path: both cards locked in
 * id order, reach decided on each under its lock (a card out of reach is a 404, whichever end it is),
 * `If-Match` on the card the path names, then each card's change recorded (`__v` + 1 and a
 * `card.relation.added` / `card.relation.removed` event on each, naming the relation and the other
 * card by id only). A new "blocks" takes the company's relation graph lock before it looks for a
 * cycle, so two requests that would close one cycle together queue there and the second is refused.
 * Reads leave out every relation whose other card the caller does not reach.
 */
import type { BoardRelation, CardRelation, CreateRelationBody } from '../../schemas/relations.ts';
import type { Executor, Transaction } from '../../storage/database.ts';
import type { CardRelationRow, RelatedCardRow, RelationKind } from '../../storage/repositories/card-relations.ts';
import * as relations from '../../storage/repositories/card-relations.ts';
import { requireAccess, withinReach } from '../access/access.ts';
import { lockCards } from '../cards/locks.ts';
import { recordCardChange } from '../cards/recorder.ts';
import type { ServiceContext } from '../context.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.ts';
import { newId, nowIso } from '../shared/ids.ts';
import { inTransaction } from '../shared/transaction.ts';

type Side = CardRelation['kind'];

/** A side as stored: which card is `from`, and the stored kind. "relates" keeps the smaller id first. */
function stored(side: Side, cardId: string, otherId: string): { from: string; to: string; kind: RelationKind } {
  switch (side) {
    case 'blocks':
      return { from: cardId, to: otherId, kind: 'blocks' };
    case 'blocked_by':
      return { from: otherId, to: cardId, kind: 'blocks' };
    case 'duplicates':
      return { from: cardId, to: otherId, kind: 'duplicates' };
    case 'duplicated_by':
      return { from: otherId, to: cardId, kind: 'duplicates' };
    case 'relates':
      return cardId < otherId ? { from: cardId, to: otherId, kind: 'relates' } : { from: otherId, to: cardId, kind: 'relates' };
  }
}

/** The relation as the card `cardId` sees it. */
function sideOf(row: CardRelationRow, cardId: string): Side {
  if (row.kind === 'relates') return 'relates';
  const outgoing = row.from_card_id === cardId;
  if (row.kind === 'blocks') return outgoing ? 'blocks' : 'blocked_by';
  return outgoing ? 'duplicates' : 'duplicated_by';
}

const otherEnd = (row: CardRelationRow, cardId: string) => (row.from_card_id === cardId ? row.to_card_id : row.from_card_id);

function relatedCard(row: RelatedCardRow) {
  const complete = row.complete_status === 1;
  const archived = row.archived === 1;
  return {
    _id: row.id,
    name: row.name,
    board: row.board_id,
    boardName: row.board_name,
    list: row.list_id,
    listName: row.list_name,
    complete: { status: complete },
    archived: { status: archived },
    open: !complete && !archived,
  };
}

function cardRelation(row: CardRelationRow, cardId: string, other: RelatedCardRow): CardRelation {
  return { _id: row.id, kind: sideOf(row, cardId), card: relatedCard(other), creator: row.creator_id, createdAt: row.created_at };
}

/** The cards at the ends of `rows` that the caller reaches, by id. */
async function reachedCards(db: Executor, caller: Caller, rows: readonly CardRelationRow[]): Promise<Map<string, RelatedCardRow>> {
  const cards = await relations.relatedCards(
    db,
    rows.flatMap((row) => [row.from_card_id, row.to_card_id]),
  );
  return new Map(withinReach(caller, [...cards.values()]).map((card) => [card.id, card]));
}

/** Get Card Relations: the card's relations whose other card the caller reaches, oldest first. */
export async function listCardRelations(ctx: ServiceContext, caller: Caller, cardId: string, scope: Scope): Promise<CardRelation[]> {
  const card = await requireAccess(ctx.db, caller, { kind: 'card', id: cardId, scope });
  const rows = await relations.relationsOfCard(ctx.db, card.id);
  const reached = await reachedCards(ctx.db, caller, rows);
  return rows.flatMap((row) => {
    const other = reached.get(otherEnd(row, card.id));
    return other ? [cardRelation(row, card.id, other)] : [];
  });
}

/** Get Board Relations: every relation with a card of the board at an end, both ends in the caller's reach. */
export async function listBoardRelations(ctx: ServiceContext, caller: Caller, boardId: string, scope: Scope): Promise<BoardRelation[]> {
  const board = await requireAccess(ctx.db, caller, { kind: 'board', id: boardId, scope });
  const rows = await relations.relationsOfBoard(ctx.db, board.id);
  const reached = await reachedCards(ctx.db, caller, rows);
  return rows.flatMap((row) => {
    const from = reached.get(row.from_card_id);
    const to = reached.get(row.to_card_id);
    return from && to
      ? [{ _id: row.id, kind: row.kind, from: relatedCard(from), to: relatedCard(to), creator: row.creator_id, createdAt: row.created_at }]
      : [];
  });
}

/**
 * Both cards locked (id order), each reached under its lock; `If-Match` applies to the path's card.
 * The other card's 404 names `body.card` when it came from the body.
 */
async function lockBoth(trx: Parameters<typeof lockCards>[0], caller: Caller, cardId: string, otherId: string, scope: Scope) {
  await lockCards(trx, [cardId, otherId]);
  const { card } = await requireAccess(trx, caller, { kind: 'card', id: cardId, scope, lock: true });
  const { card: other } = await requireAccess(trx, caller, { kind: 'card', id: otherId, lock: true, what: 'Related card' });
  return { card, other };
}

/** Create Card Relation: 201 with the relation as the path's card sees it. */
export async function createRelation(ctx: ServiceContext, caller: Caller, cardId: string, scope: Scope, body: CreateRelationBody): Promise<CardRelation> {
  if (body.card === cardId) throw new ValidationError('A card cannot be related to itself', [{ field: 'body.card', message: 'is the card itself' }]);
  return inTransaction(ctx, async (trx) => {
    const at = nowIso();
    const { card, other } = await lockBoth(trx, caller, cardId, body.card, scope);
    if (card.company_id !== other.company_id) {
      throw new ValidationError('Cards of different companies cannot be related', [
        { field: 'body.card', message: "is a card of another company than the path's card" },
      ]);
    }
    const { from, to, kind } = stored(body.kind, card.id, other.id);
    if (kind === 'blocks') {
      await relations.lockRelationGraph(trx, card.company_id);
      // the other way round is a cycle of two; longer ones are found by the walk
      if (await relations.blocksPathExists(trx, to, from)) {
        throw new ConflictError('The relation would make a cycle of "blocks": the blocked card already blocks the other, directly or through others', [
          { field: 'body.kind', message: 'would close a cycle of blocks' },
        ]);
      }
    }
    if (await relations.findRelationBetween(trx, from, kind, to)) {
      throw new ConflictError('The cards already have this relation', [{ field: 'body.card', message: 'already has this relation with the card' }]);
    }
    const row = { id: newId(), company_id: card.company_id, from_card_id: from, to_card_id: to, kind, creator_id: caller.userId, created_at: at };
    await relations.insertRelation(trx, row);
    for (const [one, two] of [
      [card, other],
      [other, card],
    ] as const) {
      await recordCardChange(trx, one, { caller, kind: 'card.relation.added', at, data: { relation: row.id, kind: sideOf(row, one.id), card: two.id } });
    }
    const shown = await relations.relatedCards(trx, [other.id]);
    return cardRelation(row, card.id, shown.get(other.id)!);
  });
}

/** Delete Card Relation: the relation, as the path's card saw it; a change of both cards. */
export async function deleteRelation(ctx: ServiceContext, caller: Caller, cardId: string, relationId: string, scope: Scope): Promise<CardRelation> {
  const seen = await relations.findRelation(ctx.db, relationId);
  if (!seen || (seen.from_card_id !== cardId && seen.to_card_id !== cardId)) {
    // reach of the path's card first: an unknown relation of a card out of reach is that card's 404
    await requireAccess(ctx.db, caller, { kind: 'card', id: cardId, scope });
    throw new NotFoundError('Relation');
  }
  return inTransaction(ctx, async (trx) => {
    const at = nowIso();
    const { card, other } = await lockBoth(trx, caller, cardId, otherEnd(seen, cardId), scope);
    const row = await relations.findRelation(trx, relationId);
    if (!row) throw new NotFoundError('Relation');
    const shown = await relations.relatedCards(trx, [other.id]);
    await relations.deleteRelation(trx, row.id);
    for (const [one, two] of [
      [card, other],
      [other, card],
    ] as const) {
      await recordCardChange(trx, one, { caller, kind: 'card.relation.removed', at, data: { relation: row.id, kind: sideOf(row, one.id), card: two.id } });
    }
    return cardRelation(row, card.id, shown.get(other.id)!);
  });
}

/**
 * Cards about to be deleted: every relation they have goes with them, and each card at the other end
 * (not deleted with them) records it, so that card shows the truth at once and its board hears of it.
 * The other cards are locked after the deleted ones; a deadlock with a relation's writer runs again.
 */
export async function dropRelationsOf(trx: Transaction, caller: Caller, cardIds: readonly string[], at: string): Promise<void> {
  const rows = await relations.relationsTouching(trx, cardIds);
  if (rows.length === 0) return;
  const going = new Set(cardIds);
  const others = await lockCards(
    trx,
    rows.flatMap((row) => [row.from_card_id, row.to_card_id]).filter((id) => !going.has(id)),
  );
  for (const row of rows) {
    await relations.deleteRelation(trx, row.id);
    for (const end of [row.from_card_id, row.to_card_id]) {
      const card = others.get(end);
      if (card)
        await recordCardChange(trx, card, {
          caller,
          kind: 'card.relation.removed',
          at,
          data: { relation: row.id, kind: sideOf(row, end), card: otherEnd(row, end), cardDeleted: true },
        });
    }
  }
}
