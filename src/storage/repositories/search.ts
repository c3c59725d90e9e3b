import { type Expression, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Executor } from '../database.ts';
import { dialectOf } from '../dialect.ts';
import { CJK_CLASS, likePattern, type TextConditions, TRIGRAM } from '../engine/search.ts';
import { entryValues, SEARCH_SOURCES } from '../migrations/0017_search.ts';
import { type Reach, reachCondition } from './boards.ts';
import { fieldsOfBoardNamed } from './custom-fields.ts';

/**
 * The search index's reads and its rebuild (migrations 0017 and 0031). A term is matched by its
 * words, the last one as the start of a word and the others whole, through FTS5 `search_words` on
 * SQLite and the `words` tsvector on PostgreSQL, narrowed to the caller's teams inside the index; a
 * term holding CJK letters is matched as a substring instead (trigrams from three letters on). How
 * each engine matches them is src/storage/engine/search.ts.
 */

export { SHORT_MATCHES } from '../engine/search.ts';

export interface SearchFilter {
  reach: Reach;
  boardId?: string | undefined;
  types?: readonly string[] | undefined;
  /** Folded words and phrases; every one must be there. */
  terms: readonly string[];
  excluded: readonly string[];
  archived: boolean;
  labels: readonly string[];
  /** User ids, or email/full-name texts. */
  members: readonly ({ userId: string } | { name: string })[];
  due?: { from?: string; before?: string; none?: true; incomplete?: true } | undefined;
  complete?: boolean | undefined;
  boards: readonly string[];
  lists: readonly string[];
  hasAttachments: boolean;
  createdSince?: string | undefined;
  /**
   * Custom field filters, by the field's name on the hit's board (docs/search.md). With `boardId`,
   * `onBoard` may give that board's fields of the name (`withBoardFields`), so each is tested by its id.
   */
  fields?: readonly FieldFilter[] | undefined;
  /** After this sort key: [tier, updatedAt, id]. */
  after?: readonly [number, string, string] | undefined;
  take: number;
}

export interface FieldFilter {
  name: string;
  op: ':' | '>' | '>=' | '<' | '<=' | 'empty';
  value: string;
  /** The fields of `boardId` so named, with their types. */
  onBoard?: readonly { id: string; type: string }[] | undefined;
}

export interface SearchRow {
  entity_type: string;
  entity_id: string;
  title: string;
  body: string;
  updated_at: string;
  tier: number;
  archived: number;
  company_id: string;
  company_name: string;
  team_id: string;
  team_name: string;
  board_id: string;
  board_name: string;
  list_id: string | null;
  list_name: string | null;
  card_id: string | null;
  card_name: string | null;
}

/** Runs of letters, digits and their marks: the words unicode61 cuts text into, and PostgreSQL's `[[:alnum:]]` runs. */
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const CJK = new RegExp(`[${CJK_CLASS}]`, 'u');

/** A searched-for term: words in sequence (the last one a start of a word), or text with CJK letters found as a substring. */
type Term = { words: string[] } | { cjk: string };

function termsOf(texts: readonly string[]): (Term | null)[] {
  return texts.map((text) => {
    if (CJK.test(text)) return { cjk: text };
    const words = text.match(WORD);
    return words === null ? null : { words };
  });
}

const isShort = (term: Term) => ('words' in term ? term.words.length === 1 && [...(term.words[0] as string)].length < TRIGRAM : [...term.cjk].length < TRIGRAM);

/**
 * The index tokens of the teams and companies `reach` covers (a superset of it: the exact reach is
 * still applied to the entries), so the index is narrowed to them before the words are matched.
 */
function scopeTokens(reach: Reach): string[] {
  if (reach.teamId !== undefined) return [`t${reach.teamId}`];
  const companies = reach.adminCompanyIds.filter((id) => reach.companyId === undefined || id === reach.companyId);
  return [...companies.map((id) => `c${id}`), ...(reach.companyIds.length > 0 ? reach.teamIds.map((id) => `t${id}`) : [])];
}

/** The text conditions of a query on the engine `db` runs on, or null when nothing can match. */
function textConditions(db: Executor, filter: SearchFilter): TextConditions | null {
  const terms = termsOf(filter.terms);
  // a term of punctuation only has no word to find
  if (terms.some((term) => term === null)) return null;
  const positive = terms as Term[];
  const excluded = termsOf(filter.excluded).filter((term): term is Term => term !== null);
  const scope = scopeTokens(filter.reach);
  // the scope holds the whole reach: with no team nor administered company in it, nothing can match
  if (scope.length === 0) return null;
  const wordsOf = (list: Term[]) => list.flatMap((term) => ('words' in term ? [term.words] : []));
  const cjkOf = (list: Term[]) => list.flatMap((term) => ('cjk' in term ? [term.cjk] : []));
  const all = wordsOf(positive);
  const cjk = cjkOf(positive);
  // only one- and two-letter words: rank the most recent matches only, the cap on a short prefix's work
  const capped = positive.length > 0 && positive.every(isShort);
  return dialectOf(db).search.textConditions({
    scope,
    all,
    none: wordsOf(excluded),
    cjk,
    cjkExcluded: cjkOf(excluded),
    capped,
    // no index narrows one- or two-letter CJK pieces: look through the most recently written entries in reach only
    cjkScan: all.length === 0 && cjk.length > 0 && capped,
    recent: () => reachCondition(filter.reach, 'r') as Expression<SqlBool>,
  });
}

function lowerLike(column: string, text: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`lower(${sql.ref(column)}) like lower(${likePattern(text)}) escape '\\'`;
}

/**
 * A card of the hit holds (or, for `empty`, lacks) a value of its board's field of that name that
 * matches: `:` a text or URL containing the value, a number equal to it, an option or a person of
 * that name (or email), a checked checkbox for true/yes; `>`, `<`… a number, or a date (compared as
 * ISO text). The matching cards are gathered once, as (card, board) pairs, each kind of match through
 * its own index of the values by field, rather than looked up card by card: a subquery tied to each
 * card walked every card the search reached.
 */
function fieldCondition(filter: FieldFilter, boardId: string | undefined): RawBuilder<SqlBool> {
  if (filter.onBoard !== undefined && boardId !== undefined && filter.op !== 'empty') return boardFieldCondition(filter, filter.onBoard, boardId);
  const named = sql`lower(f.name) = lower(${filter.name})`;
  const values = (condition: RawBuilder<unknown>) =>
    sql`select v.card_id, f.board_id from custom_fields f join card_field_values v on v.field_id = f.id where ${named} and ${condition}`;
  const heldIn = (sets: RawBuilder<unknown>[]) => sql<SqlBool>`(c.id, c.board_id) in (${sql.join(sets, sql` union all `)})`;
  if (filter.op === 'empty') {
    const field = sql`select f.id from custom_fields f where f.board_id = c.board_id and ${named}`;
    return sql<SqlBool>`c.id is not null and exists (${field}) and not exists (select 1 from card_field_values v where v.card_id = c.id and v.field_id in (${field}))
      and not exists (select 1 from card_field_choices fc where fc.card_id = c.id and fc.field_id in (${field}))`;
  }
  const number = Number(filter.value);
  const numeric = filter.value.trim() !== '' && Number.isFinite(number);
  if (filter.op !== ':') {
    const op = sql.raw(filter.op);
    return heldIn([numeric ? values(sql`v.number_value ${op} ${number}`) : values(sql`v.text_value ${op} ${filter.value} and f.type = 'date'`)]);
  }
  const truthy = ['true', 'yes', 'checked'].includes(filter.value.toLowerCase());
  return heldIn([
    // a number field's values hold no text: the index by field and text skips them
    values(sql`v.text_value is not null and lower(v.text_value) like lower(${likePattern(filter.value)}) escape '\\'`),
    ...(numeric ? [values(sql`v.number_value = ${number}`)] : []),
    ...(truthy ? [values(sql`v.number_value = 1 and f.type = 'checkbox'`)] : []),
    values(sql`v.text_value in (select u.id from users u where lower(u.full_name) = lower(${filter.value}) or lower(u.email) = lower(${filter.value}))`),
    sql`select fc.card_id, f.board_id from custom_fields f join card_field_choices fc on fc.field_id = f.id join custom_field_options o on o.id = fc.option_id
      where ${named} and lower(o.name) = lower(${filter.value})`,
  ]);
}

/**
 * `fieldCondition` for the fields of one board known by id: the card is on the board and holds a
 * matching value of one of them, each table (plain values, a select's options) tested as one
 * subquery by field. Written so, PostgreSQL may either gather the matching cards through the index
 * by field or test each card of an ordered walk by its key, whichever the matches' share makes cheaper;
 * a union of the kinds of match allows only the first.
 */
function boardFieldCondition(filter: FieldFilter, fields: readonly { id: string; type: string }[], boardId: string): RawBuilder<SqlBool> {
  const ids = (list: readonly { id: string }[]) => sql.join(list.map((f) => sql.val(f.id)));
  // each type keeps to its table (docs/decisions/0296-custom-field-reads-and-writes-by-index.md)
  const plain = fields.filter((f) => !isSelectType(f.type));
  const selects = fields.filter((f) => isSelectType(f.type));
  const number = Number(filter.value);
  const numeric = filter.value.trim() !== '' && Number.isFinite(number);
  const heldValue = (held: readonly { id: string }[], conditions: RawBuilder<unknown>[]) =>
    held.length === 0 || conditions.length === 0
      ? []
      : [sql`c.id in (select v.card_id from card_field_values v where v.field_id in (${ids(held)}) and (${sql.join(conditions, sql` or `)}))`];
  const parts: RawBuilder<unknown>[] = [];
  if (filter.op !== ':') {
    const op = sql.raw(filter.op);
    if (numeric) parts.push(...heldValue(plain, [sql`v.number_value ${op} ${number}`]));
    else
      parts.push(
        ...heldValue(
          plain.filter((f) => f.type === 'date'),
          [sql`v.text_value ${op} ${filter.value}`],
        ),
      );
  } else {
    // a number or a checkbox is held as a number, every other plain type as text (storedValue): the
    // kinds of match each can meet, which keeps PostgreSQL's estimate of the matches near the truth
    const numbers = plain.filter((f) => f.type === 'number' || f.type === 'checkbox');
    const texts = plain.filter((f) => !numbers.includes(f));
    const checkboxes = plain.filter((f) => f.type === 'checkbox');
    const truthy = ['true', 'yes', 'checked'].includes(filter.value.toLowerCase()) && checkboxes.length > 0;
    parts.push(
      ...heldValue(texts, [
        sql`lower(v.text_value) like lower(${likePattern(filter.value)}) escape '\\'`,
        sql`v.text_value in (select u.id from users u where lower(u.full_name) = lower(${filter.value}) or lower(u.email) = lower(${filter.value}))`,
      ]),
      ...heldValue(numbers, [
        ...(numeric ? [sql`v.number_value = ${number}`] : []),
        ...(truthy ? [sql`(v.number_value = 1 and v.field_id in (${ids(checkboxes)}))`] : []),
      ]),
    );
    if (selects.length > 0) {
      parts.push(sql`c.id in (select fc.card_id from card_field_choices fc join custom_field_options o on o.id = fc.option_id
        where fc.field_id in (${ids(selects)}) and lower(o.name) = lower(${filter.value}))`);
    }
  }
  if (parts.length === 0) return sql<SqlBool>`1 = 0`;
  return sql<SqlBool>`(c.board_id = ${boardId} and (${sql.join(parts, sql` or `)}))`;
}

const isSelectType = (type: string) => type === 'select' || type === 'multiselect';

/**
 * `filter` with the board's fields of each field filter's name, where the engine walks one board's
 * cards (`walksBoards`) and the filter asks for them: read before the statement, so that the planner
 * sees each filter as one subquery by field id.
 */
export async function withBoardFields(db: Executor, filter: SearchFilter): Promise<SearchFilter> {
  if (!walksBoard(db, filter) || filter.boardId === undefined || !filter.fields?.length) return filter;
  const named = await fieldsOfBoardNamed(
    db,
    filter.boardId,
    filter.fields.filter((field) => field.op !== 'empty').map((field) => field.name),
  );
  const onBoard = (name: string) => named.filter((field) => field.name.toLowerCase() === name.toLowerCase());
  return { ...filter, fields: filter.fields.map((field) => (field.op === 'empty' ? field : { ...field, onBoard: onBoard(field.name) })) };
}

/** Whether the statement walks one board's cards by time of change: the board filter, on an engine that walks. */
function walksBoard(db: Executor, filter: SearchFilter): boolean {
  return dialectOf(db).search.walksBoards && filter.boardId !== undefined && filter.types !== undefined && filter.types.every((type) => type === 'card');
}

/** Where an entry lives: its card, list and board, whichever it has. */
const entryJoins = sql`left join cards c on c.id = e.card_id
        left join lists l on l.id = coalesce(c.list_id, e.list_id)
        join boards b on b.id = coalesce(l.board_id, e.board_id)`;
/** Where a card's entry lives (the same rows for cards): joined by the columns, so PostgreSQL estimates by their statistics. */
const cardJoins = sql`join cards c on c.id = e.card_id
        join lists l on l.id = c.list_id
        join boards b on b.id = l.board_id`;

/** The entries `filter` finds, in order (title matches first, then the most recently written), `take` of them. */
export async function searchEntries(db: Executor, filter: SearchFilter): Promise<SearchRow[]> {
  const statement = searchStatement(db, await withBoardFields(db, filter));
  if (statement === null) return [];
  await catchUpWordIndex(db);
  const { rows } = await statement.execute(db);
  return rows.map((row) => ({ ...row, tier: Number(row.tier), archived: Number(row.archived) }));
}

/** Brings the word index up to date with the entries where it can lag behind them, so a search finds every change committed before it. */
export function catchUpWordIndex(db: Executor): Promise<void> {
  return dialectOf(db).search.catchUp(db);
}

/** The statement `searchEntries` runs (the bench explains it), or null when nothing can match. */
export function searchStatement(db: Executor, filter: SearchFilter): RawBuilder<SearchRow> | null {
  const reach = reachCondition(filter.reach, 'e');
  if (reach === null) return null;
  const text = textConditions(db, filter);
  if (text === null) return null;
  const where: Expression<SqlBool>[] = [...(text.withinReach ? [] : [reach]), ...text.where];
  where.push(sql<SqlBool>`b.deleted_at is null and (l.id is null or l.deleted_at is null) and (c.id is null or c.deleted_at is null)`);
  const archived = sql`(case when coalesce(c.archived, 0) <> 0 or coalesce(l.archived, 0) <> 0 or b.archived <> 0 then 1 else 0 end)`;
  // the board's cards alone (the board filter): walked by the board's index of entries by time of
  // change (migration 0115), with the archived test on the columns themselves, whose statistics
  // PostgreSQL reads (it guesses an expression's share, which took the walk's estimate to one row)
  const boardWalk = walksBoard(db, filter);
  if (!boardWalk) where.push(sql<SqlBool>`${archived} = ${filter.archived ? 1 : 0}`);
  else if (filter.archived) where.push(sql<SqlBool>`(c.archived <> 0 or l.archived <> 0 or b.archived <> 0)`);
  else where.push(sql<SqlBool>`(c.archived is null or c.archived = 0) and (l.archived is null or l.archived = 0) and b.archived = 0`);
  if (filter.boardId !== undefined) where.push(sql<SqlBool>`b.id = ${filter.boardId}`);
  if (boardWalk) where.push(sql<SqlBool>`e.board_id = ${filter.boardId}`);
  if (filter.types !== undefined) where.push(sql<SqlBool>`e.entity_type in (${sql.join(filter.types.map((t) => sql.val(t)))})`);
  for (const label of filter.labels) {
    where.push(
      sql<SqlBool>`exists (select 1 from card_labels cl join labels lb on lb.id = cl.label_id where cl.card_id = e.card_id and lower(lb.name) = lower(${label}))`,
    );
  }
  for (const member of filter.members) {
    where.push(
      'userId' in member
        ? sql<SqlBool>`exists (select 1 from card_members cm where cm.card_id = e.card_id and cm.user_id = ${member.userId})`
        : sql<SqlBool>`exists (select 1 from card_members cm join users u on u.id = cm.user_id where cm.card_id = e.card_id and (lower(u.email) = lower(${member.name}) or lower(u.full_name) = lower(${member.name})))`,
    );
  }
  const due = filter.due;
  if (due?.none) where.push(sql<SqlBool>`c.id is not null and c.due_date is null`);
  else if (due) {
    where.push(sql<SqlBool>`c.due_date is not null`);
    if (due.from !== undefined) where.push(sql<SqlBool>`c.due_date >= ${due.from}`);
    if (due.before !== undefined) where.push(sql<SqlBool>`c.due_date < ${due.before}`);
    if (due.incomplete) where.push(sql<SqlBool>`c.complete_status = 0`);
  }
  if (filter.complete !== undefined) where.push(sql<SqlBool>`c.complete_status = ${filter.complete ? 1 : 0}`);
  for (const board of filter.boards) where.push(lowerLike('b.name', board));
  for (const list of filter.lists) where.push(lowerLike('l.name', list));
  if (filter.hasAttachments) where.push(sql<SqlBool>`exists (select 1 from attachments a where a.card_id = e.card_id and a.is_deleted = 0)`);
  if (filter.createdSince !== undefined) where.push(sql<SqlBool>`e.created_at >= ${filter.createdSince}`);
  for (const field of filter.fields ?? []) where.push(fieldCondition(field, boardWalk ? filter.boardId : undefined));
  const tier = filter.terms.length === 0 ? sql`0` : sql`(case when ${text.inTitle} then 0 else 1 end)`;
  const after = filter.after;
  const page = after
    ? sql`where tier > ${after[0]} or (tier = ${after[0]} and (updated_at < ${after[1]} or (updated_at = ${after[1]} and entity_id < ${after[2]})))`
    : sql``;
  // team and company names only for the page's rows: joined earlier, they multiply PostgreSQL's misestimates
  return sql<SearchRow>`
    select h.*, t.name as team_name, co.name as company_name from (
      select * from (
        select e.entity_type, e.entity_id, e.title, e.body, e.updated_at, ${tier} as tier, ${archived} as archived,
          e.company_id, e.team_id, b.id as board_id, b.name as board_name,
          l.id as list_id, l.name as list_name, c.id as card_id, c.name as card_name
        from ${text.from}
        ${boardWalk ? cardJoins : entryJoins}
        where ${sql.join(where, sql` and `)}
      ) hits
      ${page}
      order by tier, updated_at desc, entity_id desc
      limit ${filter.take}
    ) h
    join teams t on t.id = h.team_id
    join companies co on co.id = h.company_id
    order by h.tier, h.updated_at desc, h.entity_id desc`;
}

/** What the index holds, as its rows would be built from the source tables (for the rebuild and the checks). */
export interface IndexedEntry {
  entity_type: string;
  entity_id: string;
  company_id: string;
  team_id: string;
  card_id: string | null;
  list_id: string | null;
  board_id: string | null;
  title: string;
  body: string;
}

const ENTRY_COLUMNS = ['entity_type', 'entity_id', 'company_id', 'team_id', 'card_id', 'list_id', 'board_id', 'title', 'body'] as const;

/** The index's rows, in id order. */
export async function indexedEntries(db: Executor): Promise<IndexedEntry[]> {
  const { rows } = await sql<IndexedEntry>`select ${sql.raw(ENTRY_COLUMNS.join(', '))} from search_entries order by entity_id`.execute(db);
  return rows;
}

/**
 * Which entries the word index finds by their team's token (`team:entry` pairs, sorted), next to
 * those it should find: a row the index failed to forget, or never learnt, shows as a difference.
 */
export function wordIndexCheck(db: Executor): Promise<{ found: string[]; expected: string[] }> {
  return dialectOf(db).search.check(db);
}

/** The rows the index should hold, computed from the source tables, in id order. */
export async function expectedEntries(db: Executor): Promise<IndexedEntry[]> {
  const selects = SEARCH_SOURCES.map((source) => {
    const values = entryValues(source, 's');
    return `select ${ENTRY_COLUMNS.map((c) => `${values[c]} as ${c}`).join(', ')} from ${source.table} s${source.live ? ` where s.${source.live}` : ''}`;
  });
  const { rows } = await sql<IndexedEntry>`select * from (${sql.raw(selects.join(' union all '))}) x order by entity_id`.execute(db);
  return rows;
}

/**
 * Rebuilds the entries of one source table whose ids come after `afterId`, `batch` rows in one
 * transaction: each row's entry deleted and written again from the row as it is now. Answers the
 * last id done and how many rows, or undefined when the table is done. Entries whose row is gone are removed by
 * `removeOrphans`. A row a concurrent change indexed meanwhile keeps that entry (its trigger's).
 */
export async function reindexBatch(db: Executor, table: string, afterId: string, batch: number): Promise<{ last: string; rows: number } | undefined> {
  const source = SEARCH_SOURCES.find((s) => s.table === table);
  if (!source) throw new Error(`${table} is not a searchable table`);
  const rebuilt = dialectOf(db).search.rebuiltColumns;
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ id: string }>`select id from ${sql.table(table)} where id > ${afterId} order by id limit ${batch}`.execute(trx);
    const last = rows.at(-1)?.id;
    if (last === undefined) return undefined;
    await sql`delete from search_entries where entity_id in (select id from ${sql.table(table)} where id > ${afterId} and id <= ${last})`.execute(trx);
    const values = entryValues(source, 's');
    await sql`insert into search_entries (${sql.raw([...Object.keys(values), ...rebuilt.names].join(', '))})
      select ${sql.raw([...Object.values(values), ...rebuilt.values].join(', '))} from ${sql.table(table)} s
      where s.id > ${afterId} and s.id <= ${last}${sql.raw(source.live ? ` and s.${source.live}` : '')}
      on conflict (entity_id) do nothing`.execute(trx);
    return { last, rows: rows.length };
  });
}

/** Removes entries whose source row is gone; answers how many. */
export async function removeOrphans(db: Executor): Promise<number> {
  let removed = 0;
  for (const source of SEARCH_SOURCES) {
    const result =
      await sql`delete from search_entries where entity_type = ${source.kind} and not exists (select 1 from ${sql.table(source.table)} s where s.id = search_entries.entity_id${sql.raw(source.live ? ` and s.${source.live}` : '')})`.execute(
        db,
      );
    removed += Number(result.numAffectedRows ?? 0n);
  }
  return removed;
}

/** The tables the index is built from. */
export const SEARCH_TABLES: readonly string[] = SEARCH_SOURCES.map((s) => s.table);
