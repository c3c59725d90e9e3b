/**
 * What the migrator (src/storage/migrator.ts) asks of the engine: where Kysely keeps its
 * bookkeeping, the schema the database URL names, and which failures are a race worth a retry.
 * SQLite has one schema per file and nothing to race with.
 */
import { sql } from 'kysely';
import type { Executor } from '../database.ts';

export class MigrationSupport {
  /** The schema Kysely keeps its migration bookkeeping in; undefined: the default. */
  async migrationSchema(_db: Executor): Promise<string | undefined> {
    return undefined;
  }

  /** The schema the database URL names (PostgreSQL's `?schema=`) when it does not exist; undefined otherwise. */
  async missingSchema(_db: Executor): Promise<string | undefined> {
    return undefined;
  }

  /** Creates the schema `missingSchema` named (what `taskboard migrate` does for a new deployment). */
  async createSchema(_db: Executor, _schema: string): Promise<void> {}

  /** Whether a failed migration run failed before migrating anything, on a race worth one more try. */
  isMigrationRace(_error: unknown): boolean {
    return false;
  }
}

export class PostgresMigrationSupport extends MigrationSupport {
  /** The schema the database URL names (`?schema=`, the connections' search_path), if it names one. */
  readonly #schema: string | undefined;

  constructor(schema: string | undefined) {
    super();
    this.#schema = schema;
  }

  /**
   * Kysely looks for its bookkeeping tables in every schema unless told which one; with several
   * schemas in one database (tests, shared hosts) it would find another schema's tables.
   */
  override async migrationSchema(db: Executor): Promise<string | undefined> {
    return (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema;
  }

  /**
   * A search_path naming a schema that does not exist is no error to PostgreSQL until something is
   * created there ("no schema has been selected to create in"): looked up first, so it is named.
   */
  override async missingSchema(db: Executor): Promise<string | undefined> {
    if (this.#schema === undefined) return undefined;
    const { rows } = await sql`select 1 from pg_namespace where nspname = ${this.#schema}`.execute(db);
    return rows.length === 0 ? this.#schema : undefined;
  }

  override async createSchema(db: Executor, schema: string): Promise<void> {
    await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
  }

  /**
   * Kysely's table introspection reads the catalog of every schema and fails when another schema
   * (or a table of it) is dropped meanwhile: 3F000, 42P01, or 42703 when a dropped table's columns
   * vanish between the catalog reads (seen with several suites creating and dropping schemas at
   * once); it runs before any migration.
   */
  override isMigrationRace(error: unknown): boolean {
    const code = (error as { code?: unknown } | null)?.code;
    return code === '3F000' || code === '42P01' || code === '42703';
  }
}
