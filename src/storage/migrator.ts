import { type Migration, type MigrationResultSet, Migrator } from 'kysely/migration';
import type { StorageConnection } from './dialect.ts';
import * as initial from './migrations/0001_initial.ts';

/** Migrations are listed here (not read from disk) so they work the same from source and tests. */
const migrations: Record<string, Migration> = {
  '0001_initial': initial,
};

export async function migrateToLatest({ db, dialect }: Pick<StorageConnection, 'db' | 'dialect'>): Promise<MigrationResultSet> {
  const schema = await dialect.migrationSchema(db);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  for (let attempt = 1; ; attempt++) {
    const result = await migrator.migrateToLatest();
    if (!result.error) return result;
    if (dialect.isMigrationRace(result.error) && attempt < 5) continue;
    const cause = result.error instanceof Error ? result.error.message : String(result.error);
    throw new Error(`migration failed: ${cause}`, { cause: result.error });
  }
}
