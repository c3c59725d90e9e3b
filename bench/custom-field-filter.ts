/**
 * The board filter by a custom field over a board of BENCH_FILTER_CARDS cards (default 100,000, in
 * 10 lists), through the route the web's board filter asks (GET /api/v1/search with `boardId`,
 * `types=card`, `limit=200`: web/src/search/boardFilter.ts), in one process over the real app
 * (inject, no network), on the engine of BENCH_ENGINE (default postgres). Every card holds a number
 * `Estimate` (0–99, so each value is 1% of the cards) and a select `Priority` (one of three options).
 * Measures the first page of each query, the queries in turn, BENCH_FILTER_ROUNDS rounds (default
 * 60, the first 10 dropped, or a fifth of fewer), and prints p50/p95 in milliseconds (wall and the process's CPU time),
 * then the plan of each (EXPLAIN ANALYZE on PostgreSQL, EXPLAIN QUERY PLAN on SQLite) to stderr.
 *
 *   BENCH_ENGINE=postgres bash scripts/with-node.sh node --import tsx bench/custom-field-filter.ts
 */
import { CompiledQuery } from 'kysely';
import { searchFilter } from '../src/domain/search/service.ts';
import type { Caller } from '../src/domain/shared/caller.ts';
import { newId } from '../src/domain/shared/ids.ts';
import type { Engine } from '../src/storage/database-url.ts';
import { searchStatement, withBoardFields } from '../src/storage/repositories/search.ts';
import { cardRow, seedBoard } from '../test/support/fixtures.ts';
import { bearer, buildTestApp } from '../test/support/harness.ts';
import { percentile } from './webhook-lag.ts';

const engine = (process.env.BENCH_ENGINE ?? 'postgres') as Engine;
const CARDS = Number(process.env.BENCH_FILTER_CARDS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_FILTER_ROUNDS ?? 60);
const LISTS = 10;
const WARM = Math.min(10, Math.floor(ROUNDS / 5));
const t = await buildTestApp(engine);
const auth = bearer(t.tenant.apiKey);
const db = t.services.db;
const started = performance.now();
const { boardId, listIds } = await seedBoard(t.services, t.tenant, { lists: LISTS });
const post = async (url: string, payload: object) => {
  const res = await t.app.inject({ method: 'POST', url, headers: auth, payload });
  if (res.statusCode >= 300) throw new Error(`${res.statusCode} ${res.body}`);
  return res.json().customField as { _id: string; options: { _id: string; name: string }[] };
};
const estimate = await post(`/api/v1/boards/${boardId}/custom-fields`, { name: 'Estimate', type: 'number' });
const color = (await db.selectFrom('label_colors').select('id').executeTakeFirstOrThrow()).id;
const priority = await post(`/api/v1/boards/${boardId}/custom-fields`, {
  name: 'Priority',
  type: 'select',
  options: ['high', 'medium', 'low'].map((name) => ({ name, color })),
});
let n = 0;
for (const [l, listId] of listIds.entries()) {
  const rows = Array.from({ length: CARDS / LISTS }, (_, i) =>
    cardRow({ company: t.tenant.companyId, team: t.tenant.teamId, board: boardId, _id: listId }, t.tenant.userId, `card ${l}-${i}`, (i + 1) * 1024),
  );
  for (let i = 0; i < rows.length; i += 1000) {
    const batch = rows.slice(i, i + 1000);
    await db.insertInto('cards').values(batch).execute();
    await db
      .insertInto('card_field_values')
      .values(batch.map((card, j) => ({ card_id: card.id, field_id: estimate._id, text_value: null, number_value: (n + j) % 100 })))
      .execute();
    await db
      .insertInto('card_field_choices')
      .values(batch.map((card, j) => ({ card_id: card.id, field_id: priority._id, option_id: (priority.options[(n + j) % 3] as { _id: string })._id })))
      .execute();
    n += batch.length;
  }
}
if (engine === 'postgres') await db.executeQuery(CompiledQuery.raw('analyze'));
console.log(`engine ${engine}, ${CARDS} cards on one board in ${LISTS} lists, built in ${((performance.now() - started) / 1000).toFixed(0)} s`);

const QUERIES = ['Estimate:42', 'Estimate>98', 'Estimate>3', 'Priority:high'];
const url = (q: string) => `/api/v1/search?${new URLSearchParams({ q, boardId, types: 'card', limit: '200' })}`;
const wall = new Map<string, number[]>(QUERIES.map((q) => [q, []]));
const cpu = new Map<string, number[]>(QUERIES.map((q) => [q, []]));
const hits = new Map<string, number>();
for (let round = 0; round < ROUNDS; round++) {
  for (const q of QUERIES) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const res = await t.app.inject({ method: 'GET', url: url(q), headers: auth });
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
    hits.set(q, res.json().hits.length);
    if (round < WARM) continue;
    wall.get(q)?.push(ms);
    cpu.get(q)?.push((c.user + c.system) / 1000);
  }
}
const p = (times: number[] | undefined, at: number) =>
  percentile(
    [...(times ?? [])].sort((a, b) => a - b),
    at,
  ).toFixed(1);
for (const q of QUERIES) {
  console.log(
    `${q.padEnd(14)} first page ${String(hits.get(q)).padStart(3)} hits: p50 ${p(wall.get(q), 50)} ms, p95 ${p(wall.get(q), 95)} ms; node CPU p50 ${p(cpu.get(q), 50)} ms (n=${wall.get(q)?.length})`,
  );
}

// the plans, of the statement the route runs for the owner's key
const caller: Caller = {
  userId: t.tenant.userId,
  apiKeyId: newId(),
  companyRoles: new Map([[t.tenant.companyId, 'owner']]),
  teamIds: new Set([t.tenant.teamId]),
};
for (const q of QUERIES) {
  const { filter } = await searchFilter(t.services, caller, {}, { q, boardId, types: 'card', limit: 200 });
  const compiled = searchStatement(db, await withBoardFields(db, filter))?.compile(db);
  if (!compiled) continue;
  const explain = engine === 'postgres' ? 'explain (analyze, buffers) ' : 'explain query plan ';
  const { rows } = await db.executeQuery(CompiledQuery.raw(explain + compiled.sql, [...compiled.parameters]));
  process.stderr.write(`-- ${engine} q=${q}\n${rows.map((row) => Object.values(row as object).join(' | ')).join('\n')}\n`);
}
await t.dispose();
