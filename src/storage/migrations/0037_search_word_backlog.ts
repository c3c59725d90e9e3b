import { type Kysely, sql } from 'kysely';
import { dialectOf } from '../dialect.ts';
import { CJK_CLASS } from './0031_search_words.ts';

/**
 * SQLite only (docs/decisions/0180-search-word-backlog.md): the FTS5 word index catches up with
 * `search_entries` in batches instead of in every change's own transaction, and the entries lose
 * the two secondary indexes only the word index's callers need no more. A change still writes its
 * entry (0017's triggers) in its transaction; the entry's own triggers only note what the word
 * index must forget (`search_word_stale`: the values it holds for a rowid, as FTS5's contentless
 * 'delete' needs them) and which rowids it holds whose entry changed in place
 * (`search_word_pending`); every entry past `indexed_to` is new to it. Catching up (an update of
 * `search_word_state.catch_up`, whose trigger does the work in that statement's transaction) runs
 * before every read of the index, and inside a write once the backlog passes a bound, so a
 * committed change is found by the next search and the backlog stays small.
 * PostgreSQL keeps its tsvector written by the entries' own trigger: its cost to a write is small.
 */

/** Entries past the index (or stale rows in it) after which a write catches the index up itself. */
export const WORD_BACKLOG = 2000;

const CJK = `glob '*[${CJK_CLASS}]*'`;
const scope = (of: string) => `'t' || ${of}.team_id || ' c' || ${of}.company_id`;
const indexedTo = '(select indexed_to from search_word_state)';

export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name !== 'sqlite') return;
  for (const name of ['search_entries_ai', 'search_entries_ad', 'search_entries_au']) await sql.raw(`drop trigger if exists ${name}`).execute(db);
  // the word index narrows every query to the caller's teams and gives the newest first; nothing reads these any more
  await sql`drop index if exists search_entries_team_recent`.execute(db);
  await sql`drop index if exists search_entries_card`.execute(db);
  await sql`create table search_word_state (
    id integer primary key check (id = 1),
    indexed_to integer not null,
    catch_up integer not null default 0
  )`.execute(db);
  await sql`insert into search_word_state (id, indexed_to) values (1, coalesce((select max(seq) from search_entries), 0))`.execute(db);
  await sql`create table search_word_stale (seq integer primary key, scope text not null, title text not null, body text not null)`.execute(db);
  await sql`create table search_word_pending (seq integer primary key)`.execute(db);

  const stale = (of: string) => `insert or ignore into search_word_stale (seq, scope, title, body) values (${of}.seq, ${scope(of)}, ${of}.title, ${of}.body);`;
  // a rowid the index holds comes back when the newest entry is deleted and another inserted: its old values are stale already.
  // A pending rowid whose entry is deleted stays pending: catching up finds no entry to index for it.
  await sql
    .raw(
      `create trigger search_entries_ai after insert on search_entries when new.seq <= ${indexedTo} begin
        insert or ignore into search_word_pending (seq) values (new.seq);
      end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger search_entries_backlog after insert on search_entries when new.seq > ${indexedTo} + ${WORD_BACKLOG} begin
        update search_word_state set catch_up = catch_up + 1;
      end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger search_entries_ad after delete on search_entries when old.seq <= ${indexedTo} begin
        ${stale('old')}
      end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger search_entries_au after update of title, body, team_id, company_id on search_entries when old.seq <= ${indexedTo} begin
        ${stale('old')}
        insert or ignore into search_word_pending (seq) values (new.seq);
      end`,
    )
    .execute(db);
  // deletions alone (a board's cards) grow only the stale rows; counting them one write in 32 is enough of a bound
  await sql
    .raw(
      `create trigger search_word_stale_backlog after insert on search_word_stale
        when new.seq % 32 = 0 and (select count(*) from search_word_stale) > ${WORD_BACKLOG} begin
        update search_word_state set catch_up = catch_up + 1;
      end`,
    )
    .execute(db);
  const index = (where: string) => `
    insert into search_words (rowid, scope, title, body) select e.seq, ${scope('e')}, e.title, e.body from search_entries e where ${where};
    insert into search_cjk (rowid, text) select e.seq, ${text('e')} from search_entries e where (${where}) and (${text('e')}) ${CJK};`;
  // forget before learning: a reused rowid's stale values go out before its new ones come in
  await sql
    .raw(
      `create trigger search_word_catch_up after update of catch_up on search_word_state begin
        insert into search_words (search_words, rowid, scope, title, body) select 'delete', s.seq, s.scope, s.title, s.body from search_word_stale s;
        insert into search_cjk (search_cjk, rowid, text) select 'delete', s.seq, ${text('s')} from search_word_stale s where (${text('s')}) ${CJK};
        ${index('e.seq in (select seq from search_word_pending)')}
        ${index('e.seq > old.indexed_to')}
        delete from search_word_stale;
        delete from search_word_pending;
        update search_word_state set indexed_to = max(old.indexed_to, coalesce((select max(seq) from search_entries), 0));
      end`,
    )
    .execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name !== 'sqlite') return;
  await sql`update search_word_state set catch_up = catch_up + 1`.execute(db);
  for (const name of [
    'search_entries_ai',
    'search_entries_ad',
    'search_entries_au',
    'search_entries_backlog',
    'search_word_stale_backlog',
    'search_word_catch_up',
  ])
    await sql.raw(`drop trigger if exists ${name}`).execute(db);
  await sql`drop table search_word_state`.execute(db);
  await sql`drop table search_word_stale`.execute(db);
  await sql`drop table search_word_pending`.execute(db);
  await sql`create index search_entries_team_recent on search_entries (team_id, updated_at, seq)`.execute(db);
  await sql`create index search_entries_card on search_entries (card_id) where card_id is not null`.execute(db);
  // 0031's triggers: the word index written with every change of an entry
  const index = (of: string) => `
    insert into search_words (rowid, scope, title, body) values (${of}.seq, ${scope(of)}, ${of}.title, ${of}.body);
    insert into search_cjk (rowid, text) select ${of}.seq, ${text(of)} where (${text(of)}) ${CJK};`;
  const unindex = (of: string) => `
    insert into search_words (search_words, rowid, scope, title, body) values ('delete', ${of}.seq, ${scope(of)}, ${of}.title, ${of}.body);
    insert into search_cjk (search_cjk, rowid, text) select 'delete', ${of}.seq, ${text(of)} where (${text(of)}) ${CJK};`;
  await sql.raw(`create trigger search_entries_ai after insert on search_entries begin ${index('new')} end`).execute(db);
  await sql.raw(`create trigger search_entries_ad after delete on search_entries begin ${unindex('old')} end`).execute(db);
  await sql
    .raw(`create trigger search_entries_au after update of title, body, team_id, company_id on search_entries begin ${unindex('old')} ${index('new')} end`)
    .execute(db);
}

function text(of: string): string {
  return `${of}.title || char(10) || ${of}.body`;
}
