import { type Kysely, sql } from 'kysely';

/**
 * A team's template cards, found without reading its other cards: every board of the team offers
 * them in its add-card form (docs/decisions/0304-card-templates-on-the-team.md). Few cards are
 * templates, so the index holds only those.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('cards_team_templates').on('cards').columns(['team_id', 'board_id']).where(sql.ref('is_template'), '=', sql.lit(1)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('cards_team_templates').execute();
}
