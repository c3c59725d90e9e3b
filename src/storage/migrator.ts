import type { Kysely } from 'kysely';
import { type Migration, type MigrationResultSet, Migrator } from 'kysely/migration';
import type { Database } from './database.ts';
import * as initial from './migrations/0001_initial.ts';

/** Migrations are listed here (not read from disk) so they work the same from source and tests. */
const migrations: Record<string, Migration> = {
  '0001_initial': initial,
};

export async function migrateToLatest(db: Kysely<Database>): Promise<MigrationResultSet> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const result = await migrator.migrateToLatest();
  if (result.error) {
    const cause = result.error instanceof Error ? result.error.message : String(result.error);
    throw new Error(`migration failed: ${cause}`, { cause: result.error });
  }
  return result;
}
