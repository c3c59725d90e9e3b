import type { Card } from '../../schemas/records.ts';
import type { Executor } from '../../storage/database.ts';
import { loadCardRows } from '../../storage/repositories/card-records.ts';
import * as cards from '../../storage/repositories/cards.ts';
import { requireAccess } from '../access/access.ts';
import type { ServiceContext } from '../context.ts';
import { recordEvent } from '../events/record.ts';
import { notifyMentions } from '../notifications/mentions.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { normaliseDate } from '../shared/dates.ts';
import type { TaggedBody } from '../shared/entity-tags.ts';
import { NotFoundError, ValidationError } from '../shared/errors.ts';
import { newId, nowIso } from '../shared/ids.ts';
import type { PositionRequest } from '../shared/positions.ts';
import { inTransaction } from '../shared/transaction.ts';
import { lockList, placeCard } from './locks.ts';
import { recordCardChange } from './recorder.ts';
import { toCard } from './records.ts';
import { buildCardView, type CardRenderer, currentView } from './view.ts';

/** The card's full API record. */
export async function loadCard(ctx: ServiceContext, cardId: string, db: Executor = ctx.db): Promise<Card> {
  const [row] = await loadCardRows(db, [cardId]);
  if (!row) throw new NotFoundError('Card');
  return toCard(row);
}

/** The cards' full API records, in the order of `cardIds` (missing cards are left out). */
export async function loadCards(ctx: ServiceContext, cardIds: readonly string[], db: Executor = ctx.db): Promise<Card[]> {
  return (await loadCardRows(db, cardIds)).map(toCard);
}

/**
 * Get Card Details: the record, rendered by `render`, with the caller added to `seen` the first time
 * it looks. Reach is decided on the card's row (one indexed query, which also tells whether the
 * caller has seen it and brings the card's stored view while that counts: ./view.ts), once. A first
 * view follows the lock rule: the card's lock first, then the `seen` row, and the card's change
 * (`__v` + 1) only when that row is new. Without a view that counts, the record is built from the
 * tables and stored as the card's view.
 */
export async function getCardDetails(ctx: ServiceContext, caller: Caller, cardId: string, scope: Scope, render: CardRenderer): Promise<TaggedBody> {
  const card = await requireAccess(ctx.db, caller, { kind: 'card-view', id: cardId, scope });
  if (!card.seen_by) {
    await inTransaction(ctx, async (trx) => {
      // deleted while this request waited for its lock: a 404, not a seen row of a card that is gone
      const locked = await cards.lockCard(trx, card.id);
      if (!locked) throw new NotFoundError('Card');
      const at = nowIso();
      if (await cards.addSeen(trx, card.id, caller.userId, at)) await recordCardChange(trx, locked, { caller, kind: 'card.seen', at });
    });
  } else {
    const view = currentView(card);
    if (view !== undefined) return view;
  }
  return buildCardView(ctx, card.id, render);
}

export interface NewCard {
  list: string;
  name: string;
  position?: PositionRequest | undefined;
  description?: string | undefined;
  startDate?: string | null | undefined;
  dueDate?: string | null | undefined;
}

/** Normalises a date to the record's timestamp form; checks that due is not before start. */
export function checkDates(startDate: string | null | undefined, dueDate: string | null | undefined) {
  const start = normaliseDate(startDate, 'startDate');
  const due = normaliseDate(dueDate, 'dueDate');
  if (start && due && due < start) {
    throw new ValidationError('dueDate must not be before startDate', [{ field: 'body.dueDate', message: 'must not be before startDate' }]);
  }
  return { start, due };
}

/**
 * Create Card: a new unarchived card at `position` (an index among the list's unarchived cards, as
 * Reorder Card Position counts; default: the bottom). The list's lock makes creations in one list
 * take their places one after another, so two never get the same position.
 */
export async function createCard(ctx: ServiceContext, caller: Caller, scope: Scope, input: NewCard): Promise<Card> {
  const { start, due } = checkDates(input.startDate, input.dueDate);
  const id = newId();
  await inTransaction(ctx, async (trx) => {
    const list = await requireAccess(trx, caller, { kind: 'list', id: input.list, scope });
    const now = nowIso();
    if (!(await lockList(trx, list.id))) throw new NotFoundError('List');
    const position = await placeCard(trx, caller, list.id, input.position, now);
    await cards.insertCard(trx, {
      id,
      company_id: list.company_id,
      team_id: list.team_id,
      board_id: list.board_id,
      list_id: list.id,
      name: input.name.trim(),
      description: input.description ?? '',
      creator_id: caller.userId,
      position,
      start_date: start ?? null,
      due_date: due ?? null,
      complete_set_at: now,
      complete_updated_at: now,
      created_at: now,
      updated_at: now,
      version: 0,
    });
    const subject = { company: list.company_id, team: list.team_id, board: list.board_id, card: id };
    recordEvent(trx, caller, 'card.created', subject, { list: list.id, position, name: input.name.trim() }, now);
    if (input.description)
      await notifyMentions(
        trx,
        caller,
        { after: input.description },
        { card: { id, company_id: list.company_id, team_id: list.team_id, board_id: list.board_id } },
        now,
      );
  });
  return loadCard(ctx, id);
}
