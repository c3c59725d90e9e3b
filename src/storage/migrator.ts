import { sql } from 'kysely';
import { type Migration, type MigrationResultSet, Migrator } from 'kysely/migration';
import type { StorageConnection } from './dialect.ts';
import * as initial from './migrations/0001_initial.ts';

/** Migrations are listed here (not read from disk) so they work the same from source and tests. */
const migrations: Record<string, Migration> = {
  '0001_initial': initial,
};

export async function migrateToLatest({ db, engine }: Pick<StorageConnection, 'db' | 'engine'>): Promise<MigrationResultSet> {
  // Kysely looks for its bookkeeping tables in every schema unless told which one; with several
  // PostgreSQL schemas in one database (tests, shared hosts) it would find another schema's tables.
  const schema =
    engine === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  for (let attempt = 1; ; attempt++) {
    const result = await migrator.migrateToLatest();
    if (!result.error) return result;
    // Kysely's PostgreSQL table introspection reads the catalog of every schema and fails when
    // another schema is dropped meanwhile (3F000, 42P01); it runs before any migration, so retry.
    const code = (result.error as { code?: string }).code;
    if ((code === '3F000' || code === '42P01') && attempt < 5) continue;
    const cause = result.error instanceof Error ? result.error.message : String(result.error);
    throw new Error(`migration failed: ${cause}`, { cause: result.error });
  }
}
