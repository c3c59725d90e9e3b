import type { CardUpdate } from '../../schemas/card-edits.ts';
import type { Card } from '../../schemas/records.ts';
import type { RowUpdate, Transaction } from '../../storage/database.ts';
import * as cards from '../../storage/repositories/cards.ts';
import type { ServiceContext } from '../context.ts';
import { notifyMentions } from '../notifications/mentions.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { ValidationError } from '../shared/errors.ts';
import { changeCard, changeEachCard } from './change.ts';
import type { ChangeData } from './recorder.ts';
import { checkDates } from './service.ts';

export type { CardUpdate };

/**
 * The start and due dates the card will have: those given, normalised, else the stored ones. Due
 * must not be before start, whichever of the two the request changes.
 */
function scheduledDates(card: cards.CardTableRow, update: CardUpdate) {
  const given = checkDates(update.startDate, update.dueDate);
  const start = update.startDate !== undefined ? given.start : card.start_date;
  const due = update.dueDate !== undefined ? given.due : card.due_date;
  if (start && due && Date.parse(due) < Date.parse(start)) {
    const [field, message] =
      update.dueDate !== undefined ? ['dueDate', "must not be before the card's startDate"] : ['startDate', "must not be after the card's dueDate"];
    throw new ValidationError(`${field} ${message} (${update.dueDate !== undefined ? start : due})`, [{ field: `body.${field}`, message }]);
  }
  return { start: start ?? null, due: due ?? null };
}

/**
 * The columns an update writes, checked against the stored card (dates). Pure: a bulk request
 * checks every item with it before writing any. A change of `complete.status` sets
 * `complete.setAt`; a new start or due date re-arms its reminders (`isNotified`).
 */
export function cardChanges(card: cards.CardTableRow, update: CardUpdate, at: string): RowUpdate<'cards'> {
  const change: RowUpdate<'cards'> = {};
  if (update.name !== undefined) change.name = update.name.trim();
  if (update.cover !== undefined) change.cover = update.cover.trim();
  if (update.description !== undefined) change.description = update.description;
  if (update.startDate !== undefined || update.dueDate !== undefined) {
    const { start, due } = scheduledDates(card, update);
    if (start !== card.start_date) {
      Object.assign(change, { start_date: start, notified_start_one_hour: 0, notified_start_one_day: 0 });
    }
    if (due !== card.due_date) Object.assign(change, { due_date: due, notified_due_one_hour: 0, notified_due_one_day: 0, notified_overdue: 0 });
  }
  if (update.workload?.value !== undefined) change.workload_value = update.workload.value;
  if (update.workload?.measurement !== undefined) change.workload_measurement = update.workload.measurement;
  if (update.isPublic !== undefined) change.is_public = update.isPublic ? 1 : 0;
  if (update.isTemplate !== undefined) change.is_template = update.isTemplate ? 1 : 0;
  if (update.complete !== undefined) {
    const status = update.complete.status ? 1 : 0;
    change.complete_status = status;
    if (status !== Number(card.complete_status)) change.complete_set_at = at;
    if (update.complete.type !== undefined) change.complete_type = update.complete.type.trim();
    change.complete_updated_at = at;
  }
  return change;
}

/** The card's columns an update may change, by the field of the card record that shows them. */
const FIELDS = {
  name: 'name',
  cover: 'cover',
  description: 'description',
  start_date: 'startDate',
  due_date: 'dueDate',
  workload_value: 'workload.value',
  workload_measurement: 'workload.measurement',
  is_public: 'isPublic',
  is_template: 'isTemplate',
  complete_status: 'complete.status',
  complete_type: 'complete.type',
} as const;

/** A stored value as the card record shows it (flags are stored as 0/1). */
function shown(column: keyof typeof FIELDS, value: unknown): unknown {
  return column === 'is_public' || column === 'is_template' || column === 'complete_status' ? Boolean(Number(value)) : (value ?? null);
}

/**
 * What a `card.updated` event tells of the update: the record's field names it changed, and their
 * values before and after. Fields given with the value they had are not changes. Pure: no query.
 */
function describeCardUpdate(card: cards.CardTableRow, change: RowUpdate<'cards'>): ChangeData {
  const fields: string[] = [];
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  for (const [column, field] of Object.entries(FIELDS) as [keyof typeof FIELDS, string][]) {
    if (!(column in change)) continue;
    const was = shown(column, card[column]);
    const now = shown(column, change[column]);
    if (was === now) continue;
    fields.push(field);
    before[field] = was;
    after[field] = now;
  }
  return { fields, before, after };
}

/**
 * Applies an update (the body of Update Card, or an item's `update` in Update Cards Multi Team) to
 * a card this transaction holds the lock of; answers what it changed, for the change's event.
 */
export async function applyCardUpdate(trx: Transaction, card: cards.CardTableRow, update: CardUpdate, at: string): Promise<ChangeData> {
  const change = cardChanges(card, update, at);
  await writeCardChanges(trx, card.id, change);
  return describeCardUpdate(card, change);
}

async function writeCardChanges(trx: Transaction, cardId: string, change: RowUpdate<'cards'>): Promise<void> {
  if (Object.keys(change).length > 0) await cards.setCardColumns(trx, cardId, change);
}

/** Update Card: every request is one change (`__v` + 1), even when the values were already so. */
export function updateCard(ctx: ServiceContext, caller: Caller, cardId: string, scope: Scope, update: CardUpdate): Promise<Card> {
  return changeCard(ctx, caller, cardId, scope, 'card.updated', async (trx, card, at) => {
    const data = await applyCardUpdate(trx, card, update, at);
    await tellMentioned(trx, caller, card, update, at);
    return data;
  });
}

/** A new description tells the people it newly mentions (src/domain/notifications/mentions.ts). */
async function tellMentioned(trx: Transaction, caller: Caller, card: cards.CardTableRow, update: CardUpdate, at: string): Promise<void> {
  if (update.description !== undefined) await notifyMentions(trx, caller, { before: card.description, after: update.description }, { card }, at);
}

export interface MultiTeamCardUpdate {
  cardId: string;
  companyId: string;
  teamId: string;
  update: CardUpdate;
}

/**
 * Update Cards Multi Team: each item names the company and team its card is in, the item's scope (a
 * mismatch fails that item, like a card out of reach: not_found); all or nothing; each card's `__v` + 1.
 */
export function updateCardsMultiTeam(ctx: ServiceContext, caller: Caller, items: readonly MultiTeamCardUpdate[]): Promise<Card[]> {
  return changeEachCard(
    ctx,
    caller,
    items,
    'body.cards',
    'card.updated',
    (item) => ({ cardId: item.cardId, scope: item }),
    (card, item, at) => {
      const change = cardChanges(card, item.update, at);
      return {
        data: describeCardUpdate(card, change),
        write: async (trx) => {
          await writeCardChanges(trx, card.id, change);
          await tellMentioned(trx, caller, card, item.update, at);
        },
      };
    },
  );
}
