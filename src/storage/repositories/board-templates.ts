/** Board templates kept on a team (migration 0111; src/domain/templates). */
import type { Executor, NewRow, Row, RowUpdate } from '../database.ts';

export type BoardTemplateRow = Row<'board_templates'>;

export async function insertBoardTemplate(db: Executor, row: NewRow<'board_templates'>): Promise<void> {
  await db.insertInto('board_templates').values(row).execute();
}

export async function findBoardTemplate(db: Executor, id: string): Promise<BoardTemplateRow | undefined> {
  return db.selectFrom('board_templates').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The team's templates by name. */
export async function boardTemplatesOfTeam(db: Executor, teamId: string): Promise<BoardTemplateRow[]> {
  return db.selectFrom('board_templates').selectAll().where('team_id', '=', teamId).orderBy('name').orderBy('id').execute();
}

export async function countBoardTemplatesOfTeam(db: Executor, teamId: string): Promise<number> {
  const row = await db
    .selectFrom('board_templates')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('team_id', '=', teamId)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** Changes the template (one revision: `__v` + 1); answers the row after, undefined when it is gone. */
export async function updateBoardTemplate(db: Executor, id: string, change: RowUpdate<'board_templates'>, at: string): Promise<BoardTemplateRow | undefined> {
  return db
    .updateTable('board_templates')
    .set((eb) => ({ ...change, updated_at: at, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteBoardTemplate(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('board_templates').where('id', '=', id).execute();
}
