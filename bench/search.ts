/**
 * Search at scale, on one engine: `node bench/search.ts sqlite|postgres` (run for both by `npm run
 * bench`, or alone with BENCH_SEARCH=only). Builds BENCH_SEARCH_CARDS cards (default 1,000,000) with
 * two comments each in BENCH_SEARCH_TEAMS teams (default 1,000), written in big transactions with the
 * index's triggers on; then measures, through the search service (no HTTP), a two-word query and a
 * one-letter query within one team (p50/p99 over BENCH_SEARCH_QUERIES queries, default 300, each of a
 * random team, as a member of that team only); Update Card renaming a card with the index's trigger on
 * and off (rounds in turn); and the index's size on disk next to the data's. BENCH_SEARCH_EXPLAIN=1
 * also prints (to stderr) the plan of a two-word and a one-letter query: EXPLAIN ANALYZE on
 * PostgreSQL, EXPLAIN QUERY PLAN on SQLite; BENCH_SEARCH_WRITES=1 splits a rename's cost (below).
 */
import { CompiledQuery, sql } from 'kysely';
import { bootstrap } from '../src/domain/account/bootstrap.ts';
import { updateCard } from '../src/domain/cards/update.ts';
import { search, searchFilter } from '../src/domain/search/service.ts';
import type { Caller } from '../src/domain/shared/caller.ts';
import { newId } from '../src/domain/shared/ids.ts';
import type { Engine } from '../src/storage/database-url.ts';
import { searchStatement } from '../src/storage/repositories/search.ts';
import { openTestStorage, serviceContext } from '../test/support/harness.ts';

const engine = (process.argv[2] ?? 'sqlite') as Engine;
const whole = (name: string, fallback: number) => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new Error(`${name} must be a whole number >= 1, got "${raw}"`);
  return Number(raw);
};
const CARDS = whole('BENCH_SEARCH_CARDS', 1_000_000);
const TEAMS = Math.min(whole('BENCH_SEARCH_TEAMS', 1_000), CARDS);
const QUERIES = whole('BENCH_SEARCH_QUERIES', 300);
const UPDATES = whole('BENCH_SEARCH_UPDATES', 200);

let seed = 42;
function next(): number {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const SYLLABLES = ['ka', 'lo', 'mi', 'ren', 'to', 'sa', 'vi', 'del', 'po', 'nu', 'gar', 'shi', 'be', 'qua', 'zor', 'fen', 'li', 'mo', 'tra', 'ex'];
const VOCABULARY = Array.from({ length: 5000 }, () =>
  Array.from({ length: 2 + Math.floor(next() * 3) }, () => SYLLABLES[Math.floor(next() * SYLLABLES.length)]).join(''),
);
/** Skewed: a few words are common, most are rare. */
const word = () => VOCABULARY[Math.floor(VOCABULARY.length * next() ** 2)] as string;
const words = (min: number, max: number) => Array.from({ length: min + Math.floor(next() * (max - min + 1)) }, word).join(' ');

const test = await openTestStorage(engine);
const ctx = serviceContext(test.storage);
const db = ctx.db;
const tenant = await bootstrap(ctx, { company: 'Acme', team: 'Core', email: 'o@acme.test', fullName: 'Olive' });
const at = new Date().toISOString();
const owned = (teamId: string) => ({ company_id: tenant.companyId, team_id: teamId, creator_id: tenant.userId, created_at: at, updated_at: at, version: 0 });

const started = performance.now();
const teams: { id: string; cards: string[]; names: string[] }[] = [];
const lists: { teamId: string; boardId: string; listId: string }[] = [];
await db.transaction().execute(async (trx) => {
  for (let i = 0; i < TEAMS; i++) {
    const teamId = newId();
    const boardId = newId();
    await trx
      .insertInto('teams')
      .values({ id: teamId, company_id: tenant.companyId, name: `Team ${i}`, creator_id: tenant.userId, created_at: at, updated_at: at, version: 0 })
      .execute();
    await trx.insertInto('team_members').values({ team_id: teamId, user_id: tenant.userId, created_at: at }).execute();
    await trx
      .insertInto('boards')
      .values({ id: boardId, name: `Board ${words(1, 2)}`, ...owned(teamId) })
      .execute();
    const listIds = [newId(), newId(), newId(), newId()];
    await trx
      .insertInto('lists')
      .values(listIds.map((id, k) => ({ id, board_id: boardId, name: `List ${k}`, position: k, ...owned(teamId) })))
      .execute();
    teams.push({ id: teamId, cards: [], names: [] });
    for (const listId of listIds) lists.push({ teamId, boardId, listId });
  }
});
const BATCH = 500;
const PER_TRANSACTION = engine === 'sqlite' ? 40 : 20;
for (let start = 0; start < CARDS; start += BATCH * PER_TRANSACTION) {
  await db.transaction().execute(async (trx) => {
    for (let b = start; b < Math.min(CARDS, start + BATCH * PER_TRANSACTION); b += BATCH) {
      const cards = Array.from({ length: Math.min(BATCH, CARDS - b) }, (_, i) => {
        const place = lists[(b + i) % lists.length] as (typeof lists)[number];
        const name = words(3, 6);
        const team = teams[((b + i) % lists.length) >> 2] as (typeof teams)[number];
        const id = newId();
        if (team.cards.length < 50) {
          team.cards.push(id);
          team.names.push(name);
        }
        return {
          id,
          board_id: place.boardId,
          list_id: place.listId,
          name,
          description: words(8, 20),
          position: b + i,
          ...owned(place.teamId),
        };
      });
      await trx.insertInto('cards').values(cards).execute();
      const comments = cards.flatMap((card) => [0, 1].map(() => ({ id: newId(), card_id: card.id, content: words(5, 15), ...owned(card.team_id) })));
      await trx.insertInto('comments').values(comments.slice(0, BATCH)).execute();
      await trx.insertInto('comments').values(comments.slice(BATCH)).execute();
    }
  });
  if ((start / (BATCH * PER_TRANSACTION)) % 10 === 0)
    process.stderr.write(`  [${engine}] ${Math.min(CARDS, start + BATCH * PER_TRANSACTION)} cards, ${Math.round((performance.now() - started) / 1000)} s\n`);
}
// only this schema's tables: a bare ANALYZE would read every schema of the database
if (engine === 'postgres') await sql`analyze cards, comments, search_entries, lists, boards, teams`.execute(db);
const loadSeconds = Math.round((performance.now() - started) / 1000);

const memberOf = (teamId: string): Caller => ({
  userId: tenant.userId,
  apiKeyId: newId(),
  companyRoles: new Map([[tenant.companyId, 'member']]),
  teamIds: new Set([teamId]),
});
const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
const round = (ms: number) => Math.round(ms * 100) / 100;

async function measure(makeQuery: (team: (typeof teams)[number]) => string) {
  const times: number[] = [];
  let hits = 0;
  for (let i = 0; i < QUERIES + 20; i++) {
    const team = pick(teams);
    const q = makeQuery(team);
    const t0 = performance.now();
    const page = await search(ctx, memberOf(team.id), { teamId: team.id }, { q, limit: 20 });
    const ms = performance.now() - t0;
    if (i >= 20) {
      times.push(ms);
      hits += page.items.length;
    }
  }
  times.sort((a, b) => a - b);
  return { p50: round(percentile(times, 50)), p99: round(percentile(times, 99)), meanHits: round(hits / QUERIES) };
}

const twoWords = await measure((team) => {
  const name = (pick(team.names) as string).split(' ');
  return `${name[0]} ${name[1]}`;
});
const oneLetter = await measure(() => pick(SYLLABLES)[0] as string);

if (process.env.BENCH_SEARCH_EXPLAIN) {
  const team = pick(teams);
  for (const q of [(pick(team.names) as string).split(' ').slice(0, 2).join(' '), 'k']) {
    const { filter } = await searchFilter(ctx, memberOf(team.id), { teamId: team.id }, { q, limit: 20 });
    const compiled = searchStatement(db, filter)?.compile(db);
    if (!compiled) continue;
    const explain = engine === 'postgres' ? 'explain (analyze, buffers) ' : 'explain query plan ';
    const { rows } = await db.executeQuery(CompiledQuery.raw(explain + compiled.sql, [...compiled.parameters]));
    process.stderr.write(`-- ${engine} q=${q}\n${rows.map((row) => Object.values(row as object).join(' | ')).join('\n')}\n`);
  }
}

/** Update Card renaming a card: rounds with the card trigger of the index off and on, in turn. */
async function updates(): Promise<{ withoutIndexMs: number; withIndexMs: number; overhead: string }> {
  const trigger = 'search_cards_au';
  const saved = engine === 'sqlite' ? (await sql<{ sql: string }>`select sql from sqlite_master where name = ${trigger}`.execute(db)).rows[0]?.sql : undefined;
  let current = true;
  const setIndex = async (on: boolean) => {
    if (on === current) return;
    current = on;
    if (engine === 'postgres') await sql.raw(`alter table cards ${on ? 'enable' : 'disable'} trigger ${trigger}`).execute(db);
    else if (on) await sql.raw(saved as string).execute(db);
    else await sql.raw(`drop trigger ${trigger}`).execute(db);
  };
  const means = { off: [] as number[], on: [] as number[] };
  for (let r = 0; r < 6; r++) {
    const on = r % 2 === 1;
    await setIndex(on);
    const t0 = performance.now();
    for (let i = 0; i < UPDATES; i++) {
      const team = pick(teams);
      await updateCard(ctx, memberOf(team.id), pick(team.cards), {}, { name: words(3, 6) });
    }
    means[on ? 'on' : 'off'].push((performance.now() - t0) / UPDATES);
  }
  await setIndex(true);
  // the first round warms up
  const mean = (xs: number[]) => xs.slice(1).reduce((a, b) => a + b, 0) / (xs.length - 1);
  const off = mean(means.off);
  const on = mean(means.on);
  return { withoutIndexMs: round(off), withIndexMs: round(on), overhead: `${round(((on - off) / off) * 100)} %` };
}
const write = await updates();

/**
 * BENCH_SEARCH_WRITES=1 (SQLite): a rename as one bare UPDATE per transaction, with the index whole,
 * with FTS5 merging every 4 segments instead of 16, with the entry rows but no word index, and with
 * no index at all: where the index's cost to a write goes.
 */
async function renameProfile(): Promise<Record<string, number> | undefined> {
  if (engine !== 'sqlite' || !process.env.BENCH_SEARCH_WRITES) return undefined;
  const cards = teams.flatMap((team) => team.cards);
  const renames = async (n: number) => {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const id = pick(cards);
      await db
        .transaction()
        .execute((trx) => sql`update cards set name = ${words(3, 6)}, updated_at = ${new Date().toISOString()} where id = ${id}`.execute(trx));
    }
    return (performance.now() - t0) / n;
  };
  const saved = async (name: string) => (await sql<{ sql: string }>`select sql from sqlite_master where name = ${name}`.execute(db)).rows[0]?.sql as string;
  const wordTriggers = ['search_entries_ai', 'search_entries_ad', 'search_entries_au'];
  const wordSql = await Promise.all(wordTriggers.map(saved));
  const cardSql = await saved('search_cards_au');
  const automerge = (n: number) => sql.raw(`insert into search_words (search_words, rank) values ('automerge', ${n})`).execute(db);
  const modes: Record<string, number[]> = { whole: [], automerge4: [], entriesOnly: [], none: [] };
  for (let round = 0; round < 4; round++) {
    modes.whole?.push(await renames(UPDATES));
    await automerge(4);
    modes.automerge4?.push(await renames(UPDATES));
    await automerge(16);
    for (const name of wordTriggers) await sql.raw(`drop trigger ${name}`).execute(db);
    modes.entriesOnly?.push(await renames(UPDATES));
    await sql.raw('drop trigger search_cards_au').execute(db);
    modes.none?.push(await renames(UPDATES));
    for (const text of [cardSql, ...wordSql]) await sql.raw(text).execute(db);
  }
  // the first round warms up; the median of the others
  const median = (xs: number[]) => [...xs.slice(1)].sort((a, b) => a - b)[1] as number;
  return Object.fromEntries(Object.entries(modes).map(([mode, ms]) => [`${mode}Ms`, round(median(ms))]));
}
const renameCost = await renameProfile();

async function sizes(): Promise<{ indexMB: number; dataMB: number }> {
  const rows =
    engine === 'sqlite'
      ? (await sql<{ name: string; bytes: number }>`select name, sum(pgsize) as bytes from dbstat group by name`.execute(db)).rows
      : (
          await sql<{ name: string; bytes: string }>`select c.relname as name, pg_total_relation_size(c.oid) as bytes from pg_class c
            join pg_namespace n on n.oid = c.relnamespace where n.nspname = current_schema() and c.relkind = 'r'`.execute(db)
        ).rows;
  let index = 0;
  let data = 0;
  for (const row of rows) {
    const isIndex = row.name.startsWith('search_') || row.name === 'sqlite_autoindex_search_entries_1';
    if (isIndex) index += Number(row.bytes);
    else data += Number(row.bytes);
  }
  return { indexMB: Math.round(index / 1e5) / 10, dataMB: Math.round(data / 1e5) / 10 };
}

console.log(
  JSON.stringify({
    engine,
    cards: CARDS,
    comments: CARDS * 2,
    teams: TEAMS,
    loadSeconds,
    twoWordsInTeamMs: twoWords,
    oneLetterInTeamMs: oneLetter,
    updateCardName: write,
    ...(renameCost ? { bareRename: renameCost } : {}),
    size: await sizes(),
  }),
);
await test.dispose();
