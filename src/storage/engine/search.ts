/**
 * How each engine matches the search index's words (migrations 0017, 0031 and 0037): FTS5
 * `search_words` and `search_cjk` on SQLite, the `words` tsvector and a trigram index on
 * PostgreSQL. The repository (src/storage/repositories/search.ts) cuts a query into words and CJK
 * texts; the helper of the engine turns them into SQL.
 */
import { type Expression, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Executor } from '../database.ts';

/** Letters of scripts written without spaces: kana, CJK ideographs (and extension A, compatibility), Hangul syllables. */
export const CJK_CLASS = '぀-ヿ㐀-䶿一-鿿가-힯豈-﫿';

/** The regular expression of a CJK letter, as PostgreSQL writes it (also the partial index's predicate). */
export const POSTGRES_CJK = `'[${CJK_CLASS}]'`;

/** Pieces shorter than this cannot use a trigram index: they are looked for among the most recent entries only. */
export const TRIGRAM = 3;
/** How many of the most recent entries in reach a query of one- or two-letter CJK pieces only looks through. */
export const SHORT_SCAN = 20_000;
/** How many of the most recently written matches a query of one- and two-letter words only ranks. */
export const SHORT_MATCHES = 200;

/** `text` as a LIKE pattern matching it anywhere, `\` escaping. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/gu, (c) => `\\${c}`)}%`;
}

/** A words query: the scope, every positive term (in `titleOnly`'s columns), none of the excluded ones. */
export interface WordsQuery {
  scope: string[];
  all: string[][];
  none: string[][];
  titleOnly: boolean;
}

/** What a search looks for, cut into the index's words by the repository. */
export interface SearchTerms {
  /** The index tokens of the teams and companies in reach (never empty). */
  scope: string[];
  /** The positive terms' words, each a phrase whose last word is a prefix. */
  all: string[][];
  /** The excluded terms' words. */
  none: string[][];
  /** The positive terms holding CJK letters, matched as substrings. */
  cjk: string[];
  /** The excluded terms holding CJK letters. */
  cjkExcluded: string[];
  /** Only one- and two-letter terms: rank the most recent matches only. */
  capped: boolean;
  /** Only one- or two-letter CJK pieces: look through the most recently written entries in reach only. */
  cjkScan: boolean;
  /** The exact reach over the entries aliased `r`. */
  recent: () => Expression<SqlBool>;
}

/** The text conditions of a query: where its entries (aliased `e`) come from, what must match, whether the title holds every positive term. */
export interface TextConditions {
  /** The entries to start from. */
  from: RawBuilder<unknown>;
  where: Expression<SqlBool>[];
  /** Whether the title holds every positive term (the first tier of the order). */
  inTitle: Expression<SqlBool>;
  /** The candidates were chosen within the exact reach already (restating it misleads PostgreSQL's row estimates). */
  withinReach: boolean;
}

/** The columns a rebuilt entry is written with besides the source's own, with their values. */
export interface RebuiltColumns {
  names: readonly string[];
  values: readonly string[];
}

export interface SearchIndex {
  /**
   * Whether one board's cards are walked by the board's index of entries by time of change
   * (migration 0115), with each field filter tested by field id: PostgreSQL. SQLite's word index
   * drives every query, so it keeps the statement that gathers the matches.
   */
  readonly walksBoards: boolean;
  textConditions(terms: SearchTerms): TextConditions;
  /** Brings the word index up to date with the entries when it lags behind them. */
  catchUp(db: Executor): Promise<void>;
  readonly rebuiltColumns: RebuiltColumns;
  /**
   * Which entries the word index finds by their team's token (`team:entry` pairs, sorted), next to
   * those it should find: a row the index failed to forget, or never learnt, shows as a difference.
   */
  check(db: Executor): Promise<{ found: string[]; expected: string[] }>;
}

function allOf(parts: Expression<SqlBool>[]): Expression<SqlBool> {
  return parts.length === 0 ? sql<SqlBool>`1 = 1` : sql<SqlBool>`(${sql.join(parts, sql` and `)})`;
}

/** The query of FTS5 `search_words` (columns scope, title, body). */
function ftsQuery(q: WordsQuery): string {
  const quote = (text: string) => `"${text.replaceAll('"', '""')}"`;
  const phrase = (words: string[]) => `${words.map(quote).join(' + ')}*`;
  const parts = [`{scope} : (${q.scope.map(quote).join(' OR ')})`];
  if (q.all.length > 0) parts.push(`{${q.titleOnly ? 'title' : 'title body'}} : (${q.all.map(phrase).join(' AND ')})`);
  const none = q.none.length > 0 ? ` NOT {title body} : (${q.none.map(phrase).join(' OR ')})` : '';
  return `(${parts.join(' AND ')})${none}`;
}

export class SqliteSearchIndex implements SearchIndex {
  readonly walksBoards = false;
  readonly rebuiltColumns: RebuiltColumns = { names: [], values: [] };

  textConditions(t: SearchTerms): TextConditions {
    const { scope, all, none } = t;
    const wordsMatch = (q: WordsQuery, cap: boolean): Expression<SqlBool> => {
      const limit = cap ? sql` order by rowid desc limit ${SHORT_MATCHES}` : sql``;
      return sql<SqlBool>`e.seq in (select rowid from search_words where search_words match ${ftsQuery(q)}${limit})`;
    };
    // the word index's matches drive the query, within the caller's teams by their tokens even with
    // no words (the entries have no index by team); CROSS JOIN keeps SQLite from starting elsewhere
    const limit =
      t.capped && all.length > 0 ? sql` order by rowid desc limit ${SHORT_MATCHES}` : t.cjkScan ? sql` order by rowid desc limit ${SHORT_SCAN}` : sql``;
    const from = sql`(select rowid as seq from search_words where search_words match ${ftsQuery({ scope, all, none: all.length > 0 ? none : [], titleOnly: false })}${limit}) m
      cross join search_entries e on e.seq = m.seq`;
    const where: Expression<SqlBool>[] = [];
    if (all.length === 0 && none.length > 0) {
      const any = none.map((words) => wordsMatch({ scope, all: [words], none: [], titleOnly: false }, false));
      where.push(sql<SqlBool>`not (${sql.join(any, sql` or `)})`);
    }
    for (const text of t.cjk) where.push(this.#cjkIn(text, false));
    for (const text of t.cjkExcluded) where.push(sql<SqlBool>`not ${this.#cjkIn(text, false)}`);
    const titleParts: Expression<SqlBool>[] = [];
    // the most recent title matches cover every capped candidate
    if (all.length > 0) titleParts.push(wordsMatch({ scope, all, none: [], titleOnly: true }, t.capped));
    for (const text of t.cjk) titleParts.push(this.#cjkIn(text, true));
    return { from, where, inTitle: allOf(titleParts), withinReach: false };
  }

  #cjkIn(text: string, titleOnly: boolean): Expression<SqlBool> {
    const like = (column: string) => sql<SqlBool>`${sql.ref(column)} like ${likePattern(text)} escape '\\'`;
    const either = titleOnly ? like('e.title') : sql<SqlBool>`(${like('e.title')} or ${like('e.body')})`;
    if (titleOnly || [...text].length < TRIGRAM) return either;
    return sql<SqlBool>`(e.seq in (select rowid from search_cjk where search_cjk match ${`"${text.replaceAll('"', '""')}"`}) and ${either})`;
  }

  /**
   * A search finds every change committed before it (migration 0037): the update's trigger does the
   * work, in that one statement's transaction; the check first keeps a search that finds the index
   * current from taking the write lock.
   */
  async catchUp(db: Executor): Promise<void> {
    const { rows } = await sql<{ behind: number }>`select 1 as behind from search_word_state
      where indexed_to < (select coalesce(max(seq), 0) from search_entries)
        or exists (select 1 from search_word_stale) or exists (select 1 from search_word_pending)`.execute(db);
    if (rows.length > 0) await sql`update search_word_state set catch_up = catch_up + 1`.execute(db);
  }

  async check(db: Executor): Promise<{ found: string[]; expected: string[] }> {
    const { rows: entries } = await sql<{ team_id: string; entity_id: string; seq: number }>`select team_id, entity_id, seq from search_entries`.execute(db);
    await this.catchUp(db);
    const expected = entries.map((e) => `${e.team_id}:${e.entity_id}`);
    const { rows: teams } = await sql<{ id: string }>`select id from teams`.execute(db);
    const found: string[] = [];
    const bySeq = new Map(entries.map((e) => [Number(e.seq), e.entity_id]));
    for (const team of teams) {
      const { rows } = await sql<{ rowid: number }>`select rowid from search_words where search_words match ${`{scope} : "t${team.id}"`}`.execute(db);
      for (const row of rows) found.push(`${team.id}:${bySeq.get(Number(row.rowid)) ?? `lost row ${row.rowid}`}`);
    }
    const words = await wordsHeld(db);
    found.push(...words.held);
    expected.push(...words.fresh);
    return { found: found.sort(), expected: expected.sort() };
  }
}

/**
 * Every word instance (word, rowid, column, position) the contentless word and CJK indexes hold,
 * next to those a fresh index of the entries holds: a word a rename failed to forget shows, which
 * the team tokens alone would not.
 */
async function wordsHeld(db: Executor): Promise<{ held: string[]; fresh: string[] }> {
  const fresh = ['search_words_fresh', 'search_cjk_fresh', 'search_words_v', 'search_words_fresh_v', 'search_cjk_v', 'search_cjk_fresh_v'];
  const drop = async () => {
    for (const name of fresh) await sql.raw(`drop table if exists temp.${name}`).execute(db);
  };
  await drop();
  try {
    await sql`create virtual table temp.search_words_fresh using fts5(scope, title, body, tokenize='unicode61 remove_diacritics 2')`.execute(db);
    await sql`insert into temp.search_words_fresh (rowid, scope, title, body) select seq, 't' || team_id || ' c' || company_id, title, body from search_entries`.execute(
      db,
    );
    await sql`create virtual table temp.search_cjk_fresh using fts5(text, tokenize='trigram')`.execute(db);
    await sql
      .raw(
        `insert into temp.search_cjk_fresh (rowid, text) select seq, title || char(10) || body from search_entries where (title || char(10) || body) glob '*[${CJK_CLASS}]*'`,
      )
      .execute(db);
    const instances = async (schema: string, table: string) => {
      await sql.raw(`create virtual table temp.${table}_v using fts5vocab(${schema}, ${table}, instance)`).execute(db);
      const { rows } = await sql<{
        term: string;
        doc: number;
        col: string;
        offset: number;
      }>`select term, doc, col, offset from ${sql.raw(`temp.${table}_v`)}`.execute(db);
      return rows.map((r) => `${table.replace(/_fresh$/, '')} ${r.doc} ${r.col} ${r.offset} ${r.term}`);
    };
    return {
      held: [...(await instances('main', 'search_words')), ...(await instances('main', 'search_cjk'))],
      fresh: [...(await instances('temp', 'search_words_fresh')), ...(await instances('temp', 'search_cjk_fresh'))],
    };
  } finally {
    await drop();
  }
}

/** The query of the `words` tsvector (title weighted A, body B, scope lexemes unweighted). */
function tsQuery(q: WordsQuery): string {
  const lexeme = (text: string) => `'${text.replace(/['\\]/gu, (c) => `\\${c}`)}'`;
  const weights = q.titleOnly ? 'A' : 'AB';
  const phrase = (words: string[], w: string) => `(${words.map((word, i) => `${lexeme(word)}:${i === words.length - 1 ? '*' : ''}${w}`).join(' <-> ')})`;
  const parts = [`(${q.scope.map(lexeme).join(' | ')})`, ...q.all.map((words) => phrase(words, weights))];
  if (q.none.length > 0) parts.push(`!(${q.none.map((words) => phrase(words, 'AB')).join(' | ')})`);
  return parts.join(' & ');
}

export class PostgresSearchIndex implements SearchIndex {
  readonly walksBoards = true;
  /** Empty: the entry's trigger folds them. */
  readonly rebuiltColumns: RebuiltColumns = { names: ['folded_title', 'folded'], values: ["''", "''"] };

  textConditions(t: SearchTerms): TextConditions {
    const { scope, all, none } = t;
    const wordsMatch = (q: WordsQuery, cap: boolean): Expression<SqlBool> => {
      if (!cap) return sql<SqlBool>`e.words @@ ${tsQuery(q)}::tsquery`;
      // the function form of @@ keeps the GIN index out: a one-letter prefix would gather every team's
      // matches; walking the team's entries newest first stops at the cap
      return sql<SqlBool>`e.entity_id in (select r.entity_id from search_entries r where ${t.recent()} and ts_match_vq(r.words, ${tsQuery(q)}::tsquery) order by r.updated_at desc limit ${SHORT_MATCHES})`;
    };
    const where: Expression<SqlBool>[] = [];
    if (all.length > 0) where.push(wordsMatch({ scope, all, none, titleOnly: false }, t.capped));
    if (all.length === 0 && none.length > 0) {
      const any = none.map((words) => wordsMatch({ scope, all: [words], none: [], titleOnly: false }, false));
      where.push(sql<SqlBool>`not (${sql.join(any, sql` or `)})`);
    }
    for (const text of t.cjk) where.push(this.#cjkIn(text, false));
    for (const text of t.cjkExcluded) where.push(sql<SqlBool>`not ${this.#cjkIn(text, false)}`);
    // no index narrows one- or two-letter CJK pieces
    if (t.cjkScan)
      where.push(sql<SqlBool>`e.entity_id in (select r.entity_id from search_entries r where ${t.recent()} order by r.updated_at desc limit ${SHORT_SCAN})`);
    const titleParts: Expression<SqlBool>[] = [];
    // each row's words are at hand
    if (all.length > 0) titleParts.push(sql<SqlBool>`e.words @@ ${tsQuery({ scope, all, none: [], titleOnly: true })}::tsquery`);
    for (const text of t.cjk) titleParts.push(this.#cjkIn(text, true));
    return { from: sql`search_entries e`, where, inTitle: allOf(titleParts), withinReach: all.length > 0 && t.capped };
  }

  #cjkIn(text: string, titleOnly: boolean): Expression<SqlBool> {
    const contains = (column: string) => sql<SqlBool>`${sql.ref(column)} like '%' || search_fold(${likePattern(text).slice(1, -1)}) || '%'`;
    // the CJK condition lets the planner use the partial trigram index
    return titleOnly ? contains('e.folded_title') : sql<SqlBool>`(e.folded ~ ${sql.raw(POSTGRES_CJK)} and ${contains('e.folded')})`;
  }

  async catchUp(): Promise<void> {
    // the tsvector is written with its entry, by the entry's trigger
  }

  async check(db: Executor): Promise<{ found: string[]; expected: string[] }> {
    const { rows: entries } = await sql<{ team_id: string; entity_id: string }>`select team_id, entity_id from search_entries`.execute(db);
    const expected = entries.map((e) => `${e.team_id}:${e.entity_id}`);
    const { rows: teams } = await sql<{ id: string }>`select id from teams`.execute(db);
    const found: string[] = [];
    for (const team of teams) {
      const { rows } = await sql<{ entity_id: string }>`select entity_id from search_entries where words @@ ${`'t${team.id}'`}::tsquery`.execute(db);
      for (const row of rows) found.push(`${team.id}:${row.entity_id}`);
    }
    return { found: found.sort(), expected: expected.sort() };
  }
}
