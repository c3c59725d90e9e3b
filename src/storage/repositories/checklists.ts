import type { Executor, NewRow, Row, Transaction } from '../database.ts';
import { liveCard } from './cards.ts';
import { pastKey } from './order.ts';

export type ChecklistRow = Row<'checklists'>;

/** The sort key of checklists on a card (and of the Get Checklists cursor). */
export interface PositionKey {
  position: number;
  id: string;
}

export async function findChecklist(db: Executor, id: string): Promise<ChecklistRow | undefined> {
  return db.selectFrom('checklists').selectAll().where('id', '=', id).where(liveCard('checklists.card_id')).executeTakeFirst();
}

export async function insertChecklist(db: Transaction, row: NewRow<'checklists'>): Promise<void> {
  await db.insertInto('checklists').values(row).execute();
}

/** Positions of a card's checklists in order, optionally leaving one out (the one being placed). */
export async function checklistPositionsOnCard(db: Executor, cardId: string, except?: string): Promise<{ id: string; position: number }[]> {
  let query = db.selectFrom('checklists').select(['id', 'position']).where('card_id', '=', cardId);
  if (except) query = query.where('id', '!=', except);
  return query.orderBy('position').orderBy('id').execute();
}

/** One change to a checklist (its fields, or its items, which its record embeds): `__v` + 1. */
export async function recordChecklistChange(db: Transaction, id: string, at: string, fields: { name?: string; position?: number } = {}): Promise<boolean> {
  const result = await db
    .updateTable('checklists')
    .set((eb) => ({ ...fields, updated_at: at, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteChecklist(db: Transaction, id: string): Promise<void> {
  await db.deleteFrom('checklists').where('id', '=', id).execute();
}

/** A card's checklists in order, from just after `after` (a cursor key), at most `limit`. */
export async function checklistsOfCard(db: Executor, cardId: string, options: { after?: PositionKey; limit?: number } = {}): Promise<ChecklistRow[]> {
  let query = db.selectFrom('checklists').selectAll().where('card_id', '=', cardId);
  const after = options.after;
  if (after) {
    query = query.where(pastKey(['position', 'id'], [after.position, after.id]));
  }
  query = query.orderBy('position').orderBy('id');
  if (options.limit !== undefined) query = query.limit(options.limit);
  return query.execute();
}
