/**
 * What `DATABASE_URL` names, read without loading a driver (the configuration checks it at start).
 */
export type Engine = 'sqlite' | 'postgres';

export interface ParsedDatabaseUrl {
  engine: Engine;
  /** SQLite: the file path (or `:memory:`). PostgreSQL: the connection string without `schema`. */
  location: string;
  /** PostgreSQL only: the schema to use (search_path), from `?schema=`. */
  schema?: string;
}

export function parseDatabaseUrl(url: string): ParsedDatabaseUrl {
  if (url.startsWith('sqlite:')) {
    const location = url.slice('sqlite:'.length).replace(/^\/\//, '');
    if (!location) throw new Error('DATABASE_URL sqlite: needs a file path, e.g. sqlite:./data/taskboard.db');
    return { engine: 'sqlite', location };
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const parsed = new URL(url);
    const schema = parsed.searchParams.get('schema') ?? undefined;
    parsed.searchParams.delete('schema');
    if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) {
      throw new Error(`DATABASE_URL schema "${schema}" must be a lowercase SQL identifier`);
    }
    return { engine: 'postgres', location: parsed.toString(), ...(schema ? { schema } : {}) };
  }
  throw new Error(`DATABASE_URL must start with sqlite: or postgres:// (got "${maskUrl(url)}")`);
}

/** The file a database lives in (SQLite, not in memory), or undefined when it lives in none it can see (in memory, or on a server). */
export function databaseFileOf(parsed: ParsedDatabaseUrl): string | undefined {
  return parsed.engine === 'sqlite' && parsed.location !== ':memory:' ? parsed.location : undefined;
}

/** The URL with any password masked, for logs. */
export function maskUrl(url: string): string {
  return url.replace(/\/\/([^:/@]+):([^@]+)@/, '//$1:***@');
}
