import { type Expression, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Executor } from '../database.ts';
import { dialectOf } from '../dialect.ts';
import { entryValues, SEARCH_SOURCES } from '../migrations/0017_search.ts';
import { type Reach, reachCondition } from './boards.ts';

/**
 * The search index's reads and its rebuild (migration 0017). Text is matched as folded substrings:
 * on SQLite through the FTS5 trigram index for pieces of three characters or more (shorter ones by
 * LIKE over the entries in reach), on PostgreSQL through the pg_trgm index over the folded copy.
 */

/** Pieces shorter than this cannot use a trigram index: they are looked for among the most recent entries only. */
export const TRIGRAM = 3;
/** How many of the most recent entries in reach a query of short pieces only looks through. */
export const SHORT_SCAN = 20_000;

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
  /** After this sort key: [tier, updatedAt, id]. */
  after?: readonly [number, string, string] | undefined;
  take: number;
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

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/gu, (c) => `\\${c}`)}%`;
}

function ftsString(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

/** The engine's text conditions: every piece in `all` there (in `column`s), none of `none`. */
interface TextMatch {
  has(terms: readonly string[], titleOnly: boolean): RawBuilder<SqlBool>;
  hasNone(terms: readonly string[]): RawBuilder<SqlBool>;
}

const TRUE = sql<SqlBool>`1 = 1`;

function sqliteText(): TextMatch {
  const long = (terms: readonly string[]) => terms.filter((t) => [...t].length >= TRIGRAM);
  const short = (terms: readonly string[]) => terms.filter((t) => [...t].length < TRIGRAM);
  const shortIn = (term: string, titleOnly: boolean) =>
    titleOnly
      ? sql<SqlBool>`e.title like ${likePattern(term)} escape '\\'`
      : sql<SqlBool>`(e.title like ${likePattern(term)} escape '\\' or e.body like ${likePattern(term)} escape '\\')`;
  return {
    has(terms, titleOnly) {
      const parts: RawBuilder<SqlBool>[] = [];
      const longs = long(terms);
      if (longs.length > 0) {
        const expression = `${titleOnly ? '{title} : ' : ''}(${longs.map(ftsString).join(' AND ')})`;
        parts.push(sql<SqlBool>`e.seq in (select rowid from search_fts where search_fts match ${expression})`);
      }
      for (const term of short(terms)) parts.push(shortIn(term, titleOnly));
      return parts.length === 0 ? TRUE : sql<SqlBool>`(${sql.join(parts, sql` and `)})`;
    },
    hasNone(terms) {
      const parts: RawBuilder<SqlBool>[] = [];
      const longs = long(terms);
      if (longs.length > 0) parts.push(sql<SqlBool>`e.seq not in (select rowid from search_fts where search_fts match ${longs.map(ftsString).join(' OR ')})`);
      for (const term of short(terms)) parts.push(sql<SqlBool>`not ${shortIn(term, false)}`);
      return parts.length === 0 ? TRUE : sql<SqlBool>`(${sql.join(parts, sql` and `)})`;
    },
  };
}

function postgresText(): TextMatch {
  const contains = (column: string, term: string) => sql<SqlBool>`${sql.ref(column)} like '%' || search_fold(${likePattern(term).slice(1, -1)}) || '%'`;
  return {
    has(terms, titleOnly) {
      return terms.length === 0
        ? TRUE
        : sql<SqlBool>`(${sql.join(
            terms.map((t) => contains(titleOnly ? 'e.folded_title' : 'e.folded', t)),
            sql` and `,
          )})`;
    },
    hasNone(terms) {
      return terms.length === 0
        ? TRUE
        : sql<SqlBool>`not (${sql.join(
            terms.map((t) => contains('e.folded', t)),
            sql` or `,
          )})`;
    },
  };
}

function lowerLike(column: string, text: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`lower(${sql.ref(column)}) like lower(${likePattern(text)}) escape '\\'`;
}

/** The entries `filter` finds, in order (title matches first, then the most recently written), `take` of them. */
export async function searchEntries(db: Executor, filter: SearchFilter): Promise<SearchRow[]> {
  const postgres = dialectOf(db).name === 'postgres';
  const reach = reachCondition(filter.reach, 'e');
  if (reach === null) return [];
  const text = postgres ? postgresText() : sqliteText();
  const where: Expression<SqlBool>[] = [reach, text.has(filter.terms, false), text.hasNone(filter.excluded)];
  where.push(sql<SqlBool>`b.deleted_at is null and (l.id is null or l.deleted_at is null) and (c.id is null or c.deleted_at is null)`);
  const archived = sql`(case when coalesce(c.archived, 0) <> 0 or coalesce(l.archived, 0) <> 0 or b.archived <> 0 then 1 else 0 end)`;
  where.push(sql<SqlBool>`${archived} = ${filter.archived ? 1 : 0}`);
  if (filter.boardId !== undefined) where.push(sql<SqlBool>`b.id = ${filter.boardId}`);
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
  if (filter.terms.length > 0 && filter.terms.every((t) => [...t].length < TRIGRAM)) {
    // no trigram index to narrow by: look through the most recently written entries in reach only
    const recent = reachCondition(filter.reach, 'r') as Expression<SqlBool>;
    const key = postgres ? 'entity_id' : 'seq';
    where.push(
      sql<SqlBool>`e.${sql.raw(key)} in (select r.${sql.raw(key)} from search_entries r where ${recent} order by r.updated_at desc limit ${SHORT_SCAN})`,
    );
  }
  const tier = filter.terms.length === 0 ? sql`0` : sql`(case when ${text.has(filter.terms, true)} then 0 else 1 end)`;
  const after = filter.after;
  const page = after
    ? sql`where tier > ${after[0]} or (tier = ${after[0]} and (updated_at < ${after[1]} or (updated_at = ${after[1]} and entity_id < ${after[2]})))`
    : sql``;
  const { rows } = await sql<SearchRow>`
    select * from (
      select e.entity_type, e.entity_id, e.title, e.body, e.updated_at, ${tier} as tier, ${archived} as archived,
        e.company_id, co.name as company_name, e.team_id, t.name as team_name, b.id as board_id, b.name as board_name,
        l.id as list_id, l.name as list_name, c.id as card_id, c.name as card_name
      from search_entries e
      left join cards c on c.id = e.card_id
      left join lists l on l.id = coalesce(c.list_id, e.list_id)
      join boards b on b.id = coalesce(l.board_id, e.board_id)
      join teams t on t.id = e.team_id
      join companies co on co.id = e.company_id
      where ${sql.join(where, sql` and `)}
    ) hits
    ${page}
    order by tier, updated_at desc, entity_id desc
    limit ${filter.take}`.execute(db);
  return rows.map((row) => ({ ...row, tier: Number(row.tier), archived: Number(row.archived) }));
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
  const postgres = dialectOf(db).name === 'postgres';
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ id: string }>`select id from ${sql.table(table)} where id > ${afterId} order by id limit ${batch}`.execute(trx);
    const last = rows.at(-1)?.id;
    if (last === undefined) return undefined;
    await sql`delete from search_entries where entity_id in (select id from ${sql.table(table)} where id > ${afterId} and id <= ${last})`.execute(trx);
    const values = entryValues(source, 's');
    await sql`insert into search_entries (${sql.raw(Object.keys(values).join(', '))}${sql.raw(postgres ? ', folded_title, folded' : '')})
      select ${sql.raw(Object.values(values).join(', '))}${sql.raw(postgres ? `, '', ''` : '')} from ${sql.table(table)} s
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
