/**
 * The PostgreSQL driver, loaded on first use: a server on SQLite never loads it
 * (docs/decisions/0042-load-on-first-use.md). `pg` is CommonJS, so it loads synchronously here.
 */
import { createRequire } from 'node:module';
import type pg from 'pg';

let loaded: typeof pg | undefined;

export function pgModule(): typeof pg {
  loaded ??= createRequire(import.meta.url)('pg') as typeof pg;
  return loaded;
}
