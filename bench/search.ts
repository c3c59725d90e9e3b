/**
 * Search at scale, on one engine: `node bench/search.ts sqlite|postgres` (run for both by `npm run
 * bench` at a small size, or alone with BENCH_SEARCH=only). Builds BENCH_SEARCH_CARDS cards
 * (default 1,000,000) with two comments each in BENCH_SEARCH_TEAMS teams (default 1,000), written in
 * big transactions with the index's triggers on (BENCH_SEARCH_CACHE=1 keeps them for the next run,
 * below); then measures, through the search service (no HTTP), a two-word query and a one-letter
 * query within one team (p50/p99 over BENCH_SEARCH_QUERIES queries, default 300, each of a random
 * team, as a member of that team only), and the two-word query again each right after a rename (on
 * SQLite it catches the word index up first); Update Card renaming a card with the index's trigger
 * on and off (rounds in turn), and on SQLite what catching up after those renames cost; and the
 * index's size on disk next to the data's. BENCH_SEARCH_CPU=1 times the writes by CPU time (SQLite).
 * BENCH_SEARCH_EXPLAIN=1 also prints (to stderr) the plan of a two-word and a one-letter query:
 * EXPLAIN ANALYZE on PostgreSQL, EXPLAIN QUERY PLAN on SQLite; BENCH_SEARCH_WRITES=1 splits a
 * rename's cost (below).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CompiledQuery, sql } from 'kysely';
import pg from 'pg';
import { bootstrap } from '../src/domain/account/bootstrap.ts';
import { updateCard } from '../src/domain/cards/update.ts';
import { search, searchFilter } from '../src/domain/search/service.ts';
import type { Caller } from '../src/domain/shared/caller.ts';
import { newId } from '../src/domain/shared/ids.ts';
import type { Engine } from '../src/storage/database-url.ts';
import { migrateToLatest } from '../src/storage/migrator.ts';
import { openStorage, type StorageConnection } from '../src/storage/open.ts';
import { catchUpWordIndex, searchStatement } from '../src/storage/repositories/search.ts';
import { openTestStorage, POSTGRES_URL, serviceContext } from '../test/support/harness.ts';

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

/**
 * BENCH_SEARCH_CACHE=1 keeps the loaded data for the next run of the same size: SQLite in
 * .bench-cache/search-<cards>x<teams>.db, PostgreSQL in the schema bench_search_<cards>x<teams> of
 * the test database (each run's renames change a few hundred cards of it; the queries are taken from
 * the names as they are).
 */
const CACHE = process.env.BENCH_SEARCH_CACHE === '1';
const cacheName = `search_${CARDS}x${TEAMS}`;
const root = fileURLToPath(new URL('..', import.meta.url));

async function openBenchStorage(): Promise<{ storage: StorageConnection; cached: boolean; dispose: () => Promise<void> }> {
  if (!CACHE) {
    const test = await openTestStorage(engine);
    return { storage: test.storage, cached: false, dispose: () => test.dispose() };
  }
  let url: string;
  if (engine === 'sqlite') {
    mkdirSync(join(root, '.bench-cache'), { recursive: true });
    url = `sqlite:${join(root, '.bench-cache', `${cacheName}.db`)}`;
  } else {
    const schema = `bench_${cacheName}`;
    url = `${POSTGRES_URL}${POSTGRES_URL.includes('?') ? '&' : '?'}schema=${schema}`;
    const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 });
    await client.connect();
    try {
      await client.query(`create schema if not exists ${schema}`);
    } finally {
      await client.end();
    }
  }
  const storage = openStorage(url);
  const done = await sql<{
    n: number;
  }>`select count(*) as n from ${sql.raw(engine === 'sqlite' ? 'sqlite_master where name' : 'information_schema.tables where table_schema = current_schema() and table_name')} = 'bench_loaded'`.execute(
    storage.db,
  );
  const cached = Number(done.rows[0]?.n) > 0;
  if (!cached && engine === 'sqlite') {
    // a half-loaded file from an interrupted run: start again
    await storage.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${url.slice('sqlite:'.length)}${suffix}`, { force: true });
    const fresh = openStorage(url);
    await migrateToLatest(fresh);
    return { storage: fresh, cached, dispose: () => fresh.close() };
  }
  if (!cached) {
    for (const { name } of (
      await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(storage.db)
    ).rows)
      await sql.raw(`drop table if exists "${name}" cascade`).execute(storage.db);
  }
  await migrateToLatest(storage);
  return { storage, cached, dispose: () => storage.close() };
}

const bench = await openBenchStorage();
// BENCH_SQLITE_CACHE_KB: SQLite's page cache for this connection, to compare with the app's default
if (engine === 'sqlite' && process.env.BENCH_SQLITE_CACHE_KB)
  await sql.raw(`pragma cache_size = -${whole('BENCH_SQLITE_CACHE_KB', 2000)}`).execute(bench.storage.db);
const ctx = serviceContext(bench.storage);
const db = ctx.db;
const at = new Date().toISOString();

const started = performance.now();
const teams: { id: string; cards: string[]; names: string[] }[] = [];
let tenant: { companyId: string; userId: string };
if (bench.cached) {
  const owner = (await sql<{ id: string; company_id: string }>`select t.creator_id as id, t.company_id from teams t where t.name = 'Team 0'`.execute(db))
    .rows[0];
  if (!owner) throw new Error('the cached bench data has no Team 0');
  tenant = { userId: owner.id, companyId: owner.company_id };
  const { rows: teamRows } = await sql<{ id: string }>`select id from teams where name like 'Team %' order by id`.execute(db);
  const byId = new Map(teamRows.map((row) => [row.id, { id: row.id, cards: [] as string[], names: [] as string[] }]));
  const { rows } = await sql<{ team_id: string; id: string; name: string }>`select team_id, id, name from (
      select team_id, id, name, row_number() over (partition by team_id order by position) as n from cards) x where n <= 50`.execute(db);
  for (const row of rows) {
    const team = byId.get(row.team_id);
    team?.cards.push(row.id);
    team?.names.push(row.name);
  }
  teams.push(...byId.values());
  process.stderr.write(`  [${engine}] cached data: ${teams.length} teams\n`);
} else {
  tenant = await bootstrap(ctx, { company: 'Acme', team: 'Core', email: 'o@acme.test', fullName: 'Olive' });
  await load(tenant);
}

async function load(tenant: { companyId: string; userId: string }): Promise<void> {
  const owned = (teamId: string) => ({ company_id: tenant.companyId, team_id: teamId, creator_id: tenant.userId, created_at: at, updated_at: at, version: 0 });
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
  await sql`create table bench_loaded (at text)`.execute(db);
}
// what follows picks cards and new names afresh each run: on cached data, the same renames again would change nothing
seed = whole('BENCH_SEARCH_SEED', Date.now() % 2 ** 31);
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
const round = (ms: number) => Math.round(ms * 1000) / 1000;
/**
 * BENCH_SEARCH_CPU=1 times the writes by this process's CPU time (user and system) instead of the
 * clock: on a machine shared with other work the clock also counts the time others ran. PostgreSQL
 * does its work in its own process, so there the clock is the measure.
 */
const CPU = process.env.BENCH_SEARCH_CPU === '1' && engine === 'sqlite';
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

async function measure(makeQuery: (team: (typeof teams)[number]) => string, before?: (team: (typeof teams)[number]) => Promise<unknown>) {
  const times: number[] = [];
  let hits = 0;
  for (let i = 0; i < QUERIES + 20; i++) {
    const team = pick(teams);
    const q = makeQuery(team);
    await before?.(team);
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
// each query right after another caller's rename in the same team (untimed), so on SQLite it catches the word index up first
const twoWordsAfterRename = await measure(
  (team) => (pick(team.names) as string).split(' ').slice(0, 2).join(' '),
  (team) => updateCard(ctx, memberOf(team.id), pick(team.cards), {}, { name: words(3, 6) }),
);

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
async function updates(): Promise<{
  withoutIndexMs: number;
  withIndexMs: number;
  overhead: string;
  catchUp?: { entries: number; stale: number; ms: number; perRenameMs: number };
}> {
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
  const unindexed = new Set<string>();
  await catchUpWordIndex(db);
  for (let r = 0; r < 6; r++) {
    const on = r % 2 === 1;
    await setIndex(on);
    const t0 = CPU ? cpuMs() : performance.now();
    for (let i = 0; i < UPDATES; i++) {
      const team = pick(teams);
      const card = pick(team.cards);
      await updateCard(ctx, memberOf(team.id), card, {}, { name: words(3, 6) });
      if (!on) unindexed.add(card);
    }
    means[on ? 'on' : 'off'].push(((CPU ? cpuMs() : performance.now()) - t0) / UPDATES);
  }
  await setIndex(true);
  // SQLite: what the renames left for the word index to catch up (the next search, or a write past the bound, does it)
  let catchUp: { entries: number; stale: number; ms: number; perRenameMs: number } | undefined;
  if (engine === 'sqlite') {
    const backlog = (
      await sql<{ entries: number; stale: number }>`select (select max(seq) from search_entries) - indexed_to as entries,
        (select count(*) from search_word_stale) as stale from search_word_state`.execute(db)
    ).rows[0] as { entries: number; stale: number };
    const t0 = performance.now();
    await catchUpWordIndex(db);
    const ms = performance.now() - t0;
    catchUp = { entries: Number(backlog.entries), stale: Number(backlog.stale), ms: round(ms), perRenameMs: round(ms / Math.max(1, Number(backlog.stale))) };
  }
  // index the cards renamed while the trigger was off (two renames through it), so a cached data set stays true
  for (const id of unindexed) {
    await sql`update cards set name = name || ' ' where id = ${id}`.execute(db);
    await sql`update cards set name = rtrim(name) where id = ${id}`.execute(db);
  }
  // the first round warms up
  const mean = (xs: number[]) => xs.slice(1).reduce((a, b) => a + b, 0) / (xs.length - 1);
  const off = mean(means.off);
  const on = mean(means.on);
  return { withoutIndexMs: round(off), withIndexMs: round(on), overhead: `${round(((on - off) / off) * 100)} %`, ...(catchUp ? { catchUp } : {}) };
}
const write = await updates();

/**
 * BENCH_SEARCH_WRITES=1 (SQLite): a rename as one bare UPDATE per transaction, with the index whole
 * (the entry rewritten and what the word index must catch up noted), with the entry rows but
 * nothing noted, and with no index at all: where the index's cost to a write goes.
 */
async function renameProfile(): Promise<Record<string, number> | undefined> {
  if (engine !== 'sqlite' || !process.env.BENCH_SEARCH_WRITES) return undefined;
  const cards = teams.flatMap((team) => team.cards);
  const renames = async (ids: string[]) => {
    const t0 = CPU ? cpuMs() : performance.now();
    for (const id of ids) {
      await db
        .transaction()
        .execute((trx) => sql`update cards set name = ${words(3, 6)}, updated_at = ${new Date().toISOString()} where id = ${id}`.execute(trx));
    }
    return ((CPU ? cpuMs() : performance.now()) - t0) / ids.length;
  };
  const some = () => Array.from({ length: UPDATES }, () => pick(cards));
  const saved = async (name: string) => (await sql<{ sql: string }>`select sql from sqlite_master where name = ${name}`.execute(db)).rows[0]?.sql as string;
  const notingTriggers = ['search_entries_ai', 'search_entries_ad', 'search_entries_au', 'search_entries_backlog'];
  const notingSql = await Promise.all(notingTriggers.map(saved));
  const cardSql = await saved('search_cards_au');
  const modes: Record<string, number[]> = { whole: [], entriesOnly: [], none: [] };
  for (let round = 0; round < 4; round++) {
    await catchUpWordIndex(db);
    modes.whole?.push(await renames(some()));
    await catchUpWordIndex(db);
    // without the noting triggers, what the word index must forget is noted beforehand, untimed
    const ids = some();
    await sql`insert or ignore into search_word_stale (seq, scope, title, body)
      select seq, 't' || team_id || ' c' || company_id, title, body from search_entries where entity_id in (${sql.join(ids)})`.execute(db);
    for (const name of notingTriggers) await sql.raw(`drop trigger ${name}`).execute(db);
    modes.entriesOnly?.push(await renames(ids));
    for (const text of notingSql) await sql.raw(text).execute(db);
    await catchUpWordIndex(db);
    await sql.raw('drop trigger search_cards_au').execute(db);
    modes.none?.push(await renames(some()));
    await sql.raw(cardSql).execute(db);
  }
  await catchUpWordIndex(db);
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
    twoWordsAfterARenameMs: twoWordsAfterRename,
    writesTimedBy: CPU ? 'cpu' : 'clock',
    updateCardName: write,
    ...(renameCost ? { bareRename: renameCost } : {}),
    size: await sizes(),
  }),
);
await bench.dispose();
