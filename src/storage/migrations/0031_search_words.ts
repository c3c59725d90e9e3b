import { type Kysely, sql } from 'kysely';
import { dialectOf } from '../dialect.ts';
import { CJK_CLASS, POSTGRES_CJK } from '../engine/search.ts';

/**
 * The search index matched by words (docs/decisions/0103-search-by-words.md), replacing 0017's
 * trigrams over all text: the entries of `search_entries` (still written by 0017's triggers on the
 * source tables) are indexed as case- and accent-folded words, each findable by its start, and by
 * their team and company, so a query is narrowed to the caller's teams inside the index. Only text
 * holding letters of scripts written without spaces (Chinese, Japanese, Korean) is also indexed by
 * trigrams, where any part of a run of such letters is found.
 *
 * SQLite: FTS5 `search_words` (unicode61, remove_diacritics 2, prefix indexes of 1, 2 and 3
 * letters, a `scope` column of `t<team id> c<company id>`) and FTS5 `search_cjk` (trigram), both
 * contentless (the text stays in search_entries only); a row is removed by the 'delete' command
 * with the values it was indexed with, which the entry still holds when its trigger runs
 * (contentless_delete's tombstones measured several times slower to write and to read).
 * PostgreSQL: a `words` tsvector (`simple` config over the folded text, title weighted A, body B,
 * scope lexemes unweighted) with a GIN index; pg_trgm kept as a partial index over the CJK rows.
 */

// the search's reads match by the same class and pattern (defined with them, so that the dialect
// holding the reads does not load the migrations)
export { CJK_CLASS, POSTGRES_CJK };

export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name === 'sqlite') await upSqlite(db);
  else await upPostgres(db);
}

const SQLITE_CJK = `glob '*[${CJK_CLASS}]*'`;

async function upSqlite(db: Kysely<any>): Promise<void> {
  for (const name of ['search_entries_ai', 'search_entries_ad', 'search_entries_au']) await sql.raw(`drop trigger if exists ${name}`).execute(db);
  await sql`drop table if exists search_fts`.execute(db);
  await sql`create virtual table search_words using fts5(scope, title, body, content='', columnsize=0, tokenize='unicode61 remove_diacritics 2', prefix='1 2 3')`.execute(
    db,
  );
  await sql`create virtual table search_cjk using fts5(text, content='', columnsize=0, tokenize='trigram')`.execute(db);
  // merge 16 segments at a time rather than 4: each word is rewritten fewer times as the index
  // grows, which halved the index's cost to a rename in the bench; a read looks into a few more segments
  await sql`insert into search_words (search_words, rank) values ('automerge', 16)`.execute(db);
  const index = (of: string) => `
    insert into search_words (rowid, scope, title, body) values (${of}.seq, 't' || ${of}.team_id || ' c' || ${of}.company_id, ${of}.title, ${of}.body);
    insert into search_cjk (rowid, text) select ${of}.seq, ${of}.title || char(10) || ${of}.body where (${of}.title || char(10) || ${of}.body) ${SQLITE_CJK};`;
  // a contentless table forgets a row by being told its indexed values again
  const unindex = (of: string) => `
    insert into search_words (search_words, rowid, scope, title, body) values ('delete', ${of}.seq, 't' || ${of}.team_id || ' c' || ${of}.company_id, ${of}.title, ${of}.body);
    insert into search_cjk (search_cjk, rowid, text) select 'delete', ${of}.seq, ${of}.title || char(10) || ${of}.body where (${of}.title || char(10) || ${of}.body) ${SQLITE_CJK};`;
  await sql.raw(`create trigger search_entries_ai after insert on search_entries begin ${index('new')} end`).execute(db);
  await sql.raw(`create trigger search_entries_ad after delete on search_entries begin ${unindex('old')} end`).execute(db);
  await sql
    .raw(`create trigger search_entries_au after update of title, body, team_id, company_id on search_entries begin ${unindex('old')} ${index('new')} end`)
    .execute(db);
  await sql`insert into search_words (rowid, scope, title, body) select seq, 't' || team_id || ' c' || company_id, title, body from search_entries`.execute(db);
  await sql
    .raw(`insert into search_cjk (rowid, text) select seq, title || char(10) || body from search_entries where (title || char(10) || body) ${SQLITE_CJK}`)
    .execute(db);
}

async function schemaOf(db: Kysely<any>, extension: string): Promise<string> {
  const row = (
    await sql<{
      schema: string;
    }>`select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = ${extension}`.execute(db)
  ).rows[0];
  if (!row) throw new Error(`the PostgreSQL extension ${extension} is not installed`);
  return `"${row.schema.replaceAll('"', '""')}"`;
}

async function upPostgres(db: Kysely<any>): Promise<void> {
  const trgm = await schemaOf(db, 'pg_trgm');
  await sql`alter table search_entries add column words tsvector not null default ''::tsvector`.execute(db);
  // Folded text cut into words as FTS5's unicode61 cuts it (letters and digits), so both engines see the same words.
  await sql`create function search_words_of(folded text) returns tsvector language sql immutable parallel safe
    as $$ select to_tsvector('simple', regexp_replace(folded, '[^[:alnum:]]+', ' ', 'g')) $$`.execute(db);
  await sql`create or replace function search_entry_folds() returns trigger language plpgsql as $$ begin
    new.folded_title := search_fold(new.title);
    new.folded := new.folded_title || chr(10) || search_fold(new.body);
    new.words := setweight(search_words_of(new.folded_title), 'A') || setweight(search_words_of(search_fold(new.body)), 'B')
      || array_to_tsvector(array['t' || new.team_id, 'c' || new.company_id]);
    return new;
  end $$`.execute(db);
  await sql`drop trigger search_entries_fold on search_entries`.execute(db);
  await sql`create trigger search_entries_fold before insert or update of title, body, team_id, company_id on search_entries for each row execute function search_entry_folds()`.execute(
    db,
  );
  await sql`drop index search_entries_folded`.execute(db);
  await sql`update search_entries set title = title`.execute(db);
  await sql`create index search_entries_words on search_entries using gin (words)`.execute(db);
  await sql.raw(`create index search_entries_cjk on search_entries using gin (folded ${trgm}.gin_trgm_ops) where folded ~ ${POSTGRES_CJK}`).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name === 'sqlite') {
    for (const name of ['search_entries_ai', 'search_entries_ad', 'search_entries_au']) await sql.raw(`drop trigger if exists ${name}`).execute(db);
    await sql`drop table search_words`.execute(db);
    await sql`drop table search_cjk`.execute(db);
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
    await sql`insert into search_fts (search_fts) values ('rebuild')`.execute(db);
    return;
  }
  const trgm = await schemaOf(db, 'pg_trgm');
  await sql`drop index search_entries_cjk`.execute(db);
  await sql`drop index search_entries_words`.execute(db);
  await sql`drop trigger search_entries_fold on search_entries`.execute(db);
  await sql`create or replace function search_entry_folds() returns trigger language plpgsql as $$ begin
    new.folded_title := search_fold(new.title);
    new.folded := search_fold(new.title) || chr(10) || search_fold(new.body);
    return new;
  end $$`.execute(db);
  await sql`create trigger search_entries_fold before insert or update of title, body on search_entries for each row execute function search_entry_folds()`.execute(
    db,
  );
  await sql`alter table search_entries drop column words`.execute(db);
  await sql`drop function search_words_of(text)`.execute(db);
  await sql.raw(`create index search_entries_folded on search_entries using gin (folded ${trgm}.gin_trgm_ops)`).execute(db);
}
