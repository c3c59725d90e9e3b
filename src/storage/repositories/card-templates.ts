/** The template cards of a team's boards (migration 0103): what every board of the team may make cards from. */
import type { Executor } from '../database.ts';

export interface TeamCardTemplateRow {
  id: string;
  name: string;
  board_id: string;
  board_name: string;
  list_id: string;
}

/** The open template cards of the team's open boards, by board name, then by name. */
export async function cardTemplatesOfTeam(db: Executor, teamId: string, limit: number): Promise<TeamCardTemplateRow[]> {
  return db
    .selectFrom('cards as c')
    .innerJoin('boards as b', 'b.id', 'c.board_id')
    .innerJoin('lists as l', 'l.id', 'c.list_id')
    .select(['c.id', 'c.name', 'c.board_id', 'b.name as board_name', 'c.list_id'])
    .where('c.team_id', '=', teamId)
    .where('c.is_template', '=', 1)
    .where('c.archived', '=', 0)
    .where('c.deleted_at', 'is', null)
    .where('b.archived', '=', 0)
    .where('b.deleted_at', 'is', null)
    .where('l.archived', '=', 0)
    .where('l.deleted_at', 'is', null)
    .orderBy('b.name')
    .orderBy('c.name')
    .orderBy('c.id')
    .limit(limit)
    .execute();
}
