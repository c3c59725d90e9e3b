import type { Executor, NewRow, Row, Transaction } from '../database.ts';
import { executeCompiledOnce } from '../dialect.ts';

export type LabelColorRow = Row<'label_colors'>;

/** The fixed palette, in its display order. */
export async function listLabelColors(db: Executor): Promise<LabelColorRow[]> {
  return executeCompiledOnce(db, 'label colors', () => db.selectFrom('label_colors').selectAll().orderBy('position').orderBy('id'), {});
}

export async function findLabelColor(db: Executor, id: string): Promise<LabelColorRow | undefined> {
  return db.selectFrom('label_colors').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A label joined with its colour (`labels as l`, `label_colors as lc`): the shape `toLabel` maps. */
export const LABEL_COLUMNS = [
  'l.id',
  'l.name',
  'l.creator_id',
  'l.company_id',
  'l.team_id',
  'l.board_id',
  'l.created_at',
  'l.updated_at',
  'l.version',
  'lc.id as color_id',
  'lc.name as color_name',
  'lc.hex as color_hex',
] as const;

/** Labels joined with their colour: the shape `toLabel` maps. */
function selectLabels(db: Executor) {
  return db.selectFrom('labels as l').innerJoin('label_colors as lc', 'lc.id', 'l.color_id').select(LABEL_COLUMNS);
}

export async function findLabelById(db: Executor, id: string) {
  return selectLabels(db)
    .where('l.id', '=', id)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('boards as b').select('b.id').whereRef('b.id', '=', 'l.board_id').where('b.deleted_at', 'is not', null))),
    )
    .executeTakeFirst();
}

/** A board's labels, oldest first. */
export async function findLabelsOfBoard(db: Executor, boardId: string) {
  return selectLabels(db).where('l.board_id', '=', boardId).orderBy('l.created_at').orderBy('l.id').execute();
}

export async function insertLabel(db: Executor, row: NewRow<'labels'>): Promise<void> {
  await db.insertInto('labels').values(row).execute();
}

/** Renames and/or recolours a label (one change: `__v` + 1); answers its `__v` now, undefined when there is no label. */
export async function updateLabel(db: Executor, id: string, change: { name?: string; color_id?: string }, at: string): Promise<number | undefined> {
  const row = await db
    .updateTable('labels')
    .set((eb) => ({ ...change, updated_at: at, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .returning('version')
    .executeTakeFirst();
  return row && Number(row.version);
}

/** The cards that carry the label. */
export async function cardIdsWithLabel(db: Executor, labelId: string): Promise<string[]> {
  return (await db.selectFrom('card_labels').select('card_id').where('label_id', '=', labelId).execute()).map((r) => r.card_id);
}

/** Takes the label off every card that carries it; answers the ids of those cards. */
export async function removeLabelFromCards(db: Transaction, labelId: string): Promise<string[]> {
  const removed = await db.deleteFrom('card_labels').where('label_id', '=', labelId).returning('card_id').execute();
  return removed.map((r) => r.card_id);
}

/** Deletes the label; answers the `__v` it had, undefined when it was not there to delete. */
export async function deleteLabel(db: Executor, id: string): Promise<number | undefined> {
  const row = await db.deleteFrom('labels').where('id', '=', id).returning('version').executeTakeFirst();
  return row && Number(row.version);
}
