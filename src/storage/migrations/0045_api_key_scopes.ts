import type { Kysely } from 'kysely';

/**
 * API keys that can do less (docs/people.md, "API keys"): read-only or read-write, optionally only
 * some teams, an expiry, and the address a key was last used from. A key made before keeps full
 * reach: read-write, every team, no expiry.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('api_keys')
    .addColumn('access', 'text', (c) => c.notNull().defaultTo('read-write'))
    .execute();
  // 1: the key reaches only the teams of api_key_teams (none left when they are all deleted)
  await db.schema
    .alterTable('api_keys')
    .addColumn('team_limited', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('api_keys').addColumn('expires_at', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('last_used_ip', 'text').execute();
  await db.schema
    .createTable('api_key_teams')
    .addColumn('api_key_id', 'char(24)', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
    .addColumn('team_id', 'char(24)', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    // the team's company, so that authentication knows which companies the key reaches without a join
    .addColumn('company_id', 'char(24)', (c) => c.notNull())
    .addPrimaryKeyConstraint('api_key_teams_pk', ['api_key_id', 'team_id'])
    .execute();
  await db.schema.createIndex('api_key_teams_team').on('api_key_teams').column('team_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('api_key_teams').execute();
  for (const column of ['access', 'team_limited', 'expires_at', 'last_used_ip']) {
    await db.schema.alterTable('api_keys').dropColumn(column).execute();
  }
}
