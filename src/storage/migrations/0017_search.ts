import { type Kysely, sql } from 'kysely';
import { dialectOf } from '../dialect.ts';

/**
 * The search index (docs/decisions/0100-search-index.md): one row per searchable thing in
 * `search_entries` (its kind, id, owning company and team, the card, list or board it is, its text
 * and when that text last changed), written by triggers on the source tables, so every change is
 * indexed in its own transaction whatever code path makes it, and a rolled-back one never is.
 * Where a hit lives (card, list, board), whether it is archived or deleted, and what the operators
 * ask (labels, members, dates) are read from the live tables when searching.
 *
 * Matching is by substring of case- and accent-folded text on both engines: SQLite's FTS5 `trigram`
 * tokenizer over the entries, PostgreSQL's pg_trgm GIN index over a folded copy (unaccent + lower).
 */

/** What each source table puts in the index: its kind, its title and body, which rows, which columns matter. */
export const SEARCH_SOURCES = [
  // a card's entry holds its board (kept by 0115's triggers): the board filter walks a board's cards by it
  { table: 'cards', kind: 'card', title: 'name', body: 'description', card: 'id', list: null, board: 'board_id', live: null },
  { table: 'comments', kind: 'comment', title: null, body: 'content', card: 'card_id', list: null, board: null, live: null },
  { table: 'discussions', kind: 'discussion', title: null, body: 'content', card: 'card_id', list: null, board: null, live: null },
  { table: 'checklist_items', kind: 'checklistItem', title: 'name', body: null, card: 'card_id', list: null, board: null, live: null },
  { table: 'attachments', kind: 'attachment', title: 'name', body: null, card: 'card_id', list: null, board: null, live: 'is_deleted = 0' },
  { table: 'boards', kind: 'board', title: 'name', body: null, card: null, list: null, board: 'id', live: null },
  { table: 'lists', kind: 'list', title: 'name', body: null, card: null, list: 'id', board: null, live: null },
] as const;

export type SearchSource = (typeof SEARCH_SOURCES)[number];

/** The columns of an entry, and the source expressions (`of` a row alias) that fill them. */
export function entryValues(source: SearchSource, of: string): Record<string, string> {
  const col = (name: string | null) => (name === null ? 'null' : `${of}.${name}`);
  return {
    entity_type: `'${source.kind}'`,
    entity_id: `${of}.id`,
    company_id: `${of}.company_id`,
    team_id: `${of}.team_id`,
    card_id: col(source.card),
    list_id: col(source.list),
    board_id: col(source.board),
    title: source.title === null ? `''` : `${of}.${source.title}`,
    body: source.body === null ? `''` : `${of}.${source.body}`,
    created_at: `${of}.created_at`,
    updated_at: `${of}.updated_at`,
  };
}

/** The columns whose change re-indexes a row. */
function watched(source: SearchSource): string[] {
  return ['company_id', 'team_id', source.title, source.body, source.live === null ? null : 'is_deleted'].filter((c): c is string => c !== null);
}

/** SQLite's triggers that write `source`'s entries: on insert, on a change of a watched column (the entry written again), on delete. */
export async function createSqliteSourceTriggers(db: Kysely<any>, source: SearchSource): Promise<void> {
  const values = entryValues(source, 'new');
  const insert = `insert into search_entries (${Object.keys(values).join(', ')}) select ${Object.values(values).join(', ')}${source.live ? ` where new.${source.live}` : ''};`;
  const columns = watched(source);
  const changed = columns.map((c) => `new.${c} is not old.${c}`).join(' or ');
  await sql.raw(`create trigger search_${source.table}_ai after insert on ${source.table} begin ${insert} end`).execute(db);
  await sql
    .raw(
      `create trigger search_${source.table}_au after update of ${columns.join(', ')} on ${source.table} when ${changed} begin
        delete from search_entries where entity_id = old.id; ${insert} end`,
    )
    .execute(db);
  await sql
    .raw(`create trigger search_${source.table}_ad after delete on ${source.table} begin delete from search_entries where entity_id = old.id; end`)
    .execute(db);
}

/** PostgreSQL's function that writes `source`'s entries, which its three triggers run (created or replaced). */
export async function createPostgresSourceFunction(db: Kysely<any>, source: SearchSource): Promise<void> {
  const values = entryValues(source, 'new');
  const insert = `insert into search_entries (${Object.keys(values).join(', ')}, folded_title, folded) select ${Object.values(values).join(', ')}, '', ''${source.live ? ` where new.${source.live}` : ''};`;
  await sql
    .raw(
      `create or replace function search_${source.table}_index() returns trigger language plpgsql as $$ begin
        if tg_op <> 'INSERT' then delete from search_entries where entity_id = old.id; end if;
        if tg_op <> 'DELETE' then ${insert} end if;
        return null;
      end $$`,
    )
    .execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name === 'sqlite') await upSqlite(db);
  else await upPostgres(db);
}

async function upSqlite(db: Kysely<any>): Promise<void> {
  await sql`create table search_entries (
    seq integer primary key,
    entity_type text not null,
    entity_id char(24) not null unique,
    company_id char(24) not null,
    team_id char(24) not null,
    card_id char(24),
    list_id char(24),
    board_id char(24),
    title text not null,
    body text not null,
    created_at text not null,
    updated_at text not null
  )`.execute(db);
  await sql`create index search_entries_team_recent on search_entries (team_id, updated_at, seq)`.execute(db);
  await sql`create index search_entries_card on search_entries (card_id) where card_id is not null`.execute(db);
  // External content: the FTS table keeps only its index; its text is read from search_entries.
  await sql`create virtual table search_fts using fts5(title, body, content='search_entries', content_rowid='seq', tokenize='trigram remove_diacritics 1')`.execute(
    db,
  );
  await sql`create trigger search_entries_ai after insert on search_entries begin
    insert into search_fts (rowid, title, body) values (new.seq, new.title, new.body);
  end`.execute(db);
  await sql`create trigger search_entries_ad after delete on search_entries begin
    insert into search_fts (search_fts, rowid, title, body) values ('delete', old.seq, old.title, old.body);
  end`.execute(db);
  await sql`create trigger search_entries_au after update of title, body on search_entries begin
    insert into search_fts (search_fts, rowid, title, body) values ('delete', old.seq, old.title, old.body);
    insert into search_fts (rowid, title, body) values (new.seq, new.title, new.body);
  end`.execute(db);
  for (const source of SEARCH_SOURCES) await createSqliteSourceTriggers(db, source);
  await fill(db);
}

/**
 * The schema an extension lives in, created in `public` when missing: tests run in schemas of their
 * own that they drop, which would drop an extension created there. Two migrations racing to create
 * it are both fine (the loser finds it made).
 */
async function extensionSchema(db: Kysely<any>, name: string): Promise<string> {
  await sql
    .raw(
      `do $$ begin create extension if not exists ${name} with schema public;
       exception when unique_violation or duplicate_object then null; end $$`,
    )
    .execute(db);
  const row = (
    await sql<{
      schema: string;
    }>`select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = ${name}`.execute(db)
  ).rows[0];
  if (!row) throw new Error(`the PostgreSQL extension ${name} is not installed`);
  return row.schema;
}

async function upPostgres(db: Kysely<any>): Promise<void> {
  const trgm = await extensionSchema(db, 'pg_trgm');
  const unaccent = await extensionSchema(db, 'unaccent');
  const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
  // unaccent() is only stable (its dictionary could change); the index holds the folded text it made.
  await sql
    .raw(
      `create function search_fold(value text) returns text language sql immutable parallel safe
       as $$ select lower(${ident(unaccent)}.unaccent('${ident(unaccent)}.unaccent'::regdictionary, coalesce(value, ''))) $$`,
    )
    .execute(db);
  await sql`create table search_entries (
    entity_type text not null,
    entity_id char(24) primary key,
    company_id char(24) not null,
    team_id char(24) not null,
    card_id char(24),
    list_id char(24),
    board_id char(24),
    title text not null,
    body text not null,
    folded_title text not null,
    folded text not null,
    created_at text not null,
    updated_at text not null
  )`.execute(db);
  await sql`create index search_entries_team_recent on search_entries (team_id, updated_at, entity_id)`.execute(db);
  await sql`create index search_entries_card on search_entries (card_id) where card_id is not null`.execute(db);
  await sql.raw(`create index search_entries_folded on search_entries using gin (folded ${ident(trgm)}.gin_trgm_ops)`).execute(db);
  await sql`create function search_entry_folds() returns trigger language plpgsql as $$ begin
    new.folded_title := search_fold(new.title);
    new.folded := search_fold(new.title) || chr(10) || search_fold(new.body);
    return new;
  end $$`.execute(db);
  await sql`create trigger search_entries_fold before insert or update of title, body on search_entries for each row execute function search_entry_folds()`.execute(
    db,
  );
  for (const source of SEARCH_SOURCES) {
    const columns = watched(source);
    const changed = columns.map((c) => `new.${c} is distinct from old.${c}`).join(' or ');
    await createPostgresSourceFunction(db, source);
    await sql
      .raw(`create trigger search_${source.table}_ai after insert on ${source.table} for each row execute function search_${source.table}_index()`)
      .execute(db);
    await sql
      .raw(
        `create trigger search_${source.table}_au after update of ${columns.join(', ')} on ${source.table} for each row when (${changed}) execute function search_${source.table}_index()`,
      )
      .execute(db);
    await sql
      .raw(`create trigger search_${source.table}_ad after delete on ${source.table} for each row execute function search_${source.table}_index()`)
      .execute(db);
  }
  await fill(db);
}

/** Indexes the rows already there (an upgraded database). */
async function fill(db: Kysely<any>): Promise<void> {
  const postgres = dialectOf(db).name === 'postgres';
  for (const source of SEARCH_SOURCES) {
    const values = entryValues(source, 's');
    await sql
      .raw(
        `insert into search_entries (${Object.keys(values).join(', ')}${postgres ? ', folded_title, folded' : ''})
         select ${Object.values(values).join(', ')}${postgres ? `, '', ''` : ''} from ${source.table} s${source.live ? ` where s.${source.live}` : ''}`,
      )
      .execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = dialectOf(db).name === 'postgres';
  for (const source of SEARCH_SOURCES) {
    for (const when of ['ai', 'au', 'ad'])
      await sql.raw(`drop trigger if exists search_${source.table}_${when}${postgres ? ` on ${source.table}` : ''}`).execute(db);
    if (postgres) await sql.raw(`drop function if exists search_${source.table}_index()`).execute(db);
  }
  if (postgres) {
    await sql`drop table search_entries`.execute(db);
    await sql`drop function search_entry_folds()`.execute(db);
    await sql`drop function search_fold(text)`.execute(db);
  } else {
    await sql`drop table search_fts`.execute(db);
    await sql`drop table search_entries`.execute(db);
  }
}
