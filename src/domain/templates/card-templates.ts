/**
 * Card templates kept on the team (docs/decisions/0304-card-templates-on-the-team.md): a template
 * card of any board of a team serves every board of the team, whose add-card form offers it; a card
 * is made from it by Copy Card, which carries a template's labels onto the labels of the same name
 * and colour of the board it lands on.
 */
import type { Static } from 'typebox';
import type { TeamCardTemplate } from '../../schemas/board-templates.ts';
import { cardTemplatesOfTeam } from '../../storage/repositories/card-templates.ts';
import { requireAccess } from '../access/access.ts';
import type { ServiceContext } from '../context.ts';
import type { Caller } from '../shared/caller.ts';

/** How many of a team's template cards one read answers: a choice, not a listing to page through. */
export const MAX_TEAM_CARD_TEMPLATES = 200;

/** The team's template cards on its open boards and lists, by board name, then name. */
export async function listTeamCardTemplates(ctx: ServiceContext, caller: Caller, teamId: string): Promise<Static<typeof TeamCardTemplate>[]> {
  const team = await requireAccess(ctx.db, caller, { kind: 'team', id: teamId });
  const rows = await cardTemplatesOfTeam(ctx.db, team.id, MAX_TEAM_CARD_TEMPLATES);
  return rows.map((row) => ({ _id: row.id, name: row.name, board: row.board_id, boardName: row.board_name, list: row.list_id }));
}
