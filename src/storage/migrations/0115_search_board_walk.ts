import { type Kysely, sql } from 'kysely';
import { dialectOf } from '../dialect.ts';
import { createPostgresSourceFunction, createSqliteSourceTriggers, SEARCH_SOURCES } from './0017_search.ts';

/**
 * A card's search entry holds its board (docs/decisions/0306-board-filter-walks-by-time-of-change.md),
 * and PostgreSQL indexes a board's entries by time of change, so the board filter walks the board's
 * cards newest first and stops at its page instead of ordering every match. The entry is written
 * with its board (0017's triggers, whose card source now names it) and a move to another board sets
 * it in place: a move is no change of the entry's text, so it keeps its time and its words.
 * SQLite keeps the column but not the index: its word index drives every query (0037).
 */
const CARDS = SEARCH_SOURCES.find((source) => source.table === 'cards') ?? SEARCH_SOURCES[0];

export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name === 'sqlite') {
    await sql`update search_entries set board_id = (select c.board_id from cards c where c.id = search_entries.entity_id) where entity_type = 'card'`.execute(
      db,
    );
    for (const when of ['ai', 'au', 'ad']) await sql.raw(`drop trigger search_cards_${when}`).execute(db);
    await createSqliteSourceTriggers(db, CARDS);
    await sql`create trigger search_cards_board after update of board_id on cards when new.board_id is not old.board_id begin
      update search_entries set board_id = new.board_id where entity_id = new.id;
    end`.execute(db);
    return;
  }
  await sql`update search_entries e set board_id = c.board_id from cards c where c.id = e.entity_id and e.entity_type = 'card'`.execute(db);
  await createPostgresSourceFunction(db, CARDS);
  await sql`create function search_cards_board() returns trigger language plpgsql as $$ begin
    update search_entries set board_id = new.board_id where entity_id = new.id;
    return null;
  end $$`.execute(db);
  await sql`create trigger search_cards_board after update of board_id on cards for each row when (new.board_id is distinct from old.board_id)
    execute function search_cards_board()`.execute(db);
  await sql`create index search_entries_board_recent on search_entries (board_id, updated_at, entity_id) where board_id is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name === 'sqlite') {
    await sql`drop trigger search_cards_board`.execute(db);
  } else {
    await sql`drop index search_entries_board_recent`.execute(db);
    await sql`drop trigger search_cards_board on cards`.execute(db);
    await sql`drop function search_cards_board()`.execute(db);
  }
  // the entries' triggers keep writing the card's board, which nothing reads without the walk
}
