/**
 * Custom fields against what exists (docs/benchmarks.md, "Custom fields"), in one process over the
 * real app (inject, no network), on the engine of BENCH_ENGINE (sqlite or postgres):
 *   1. Set Card Custom Field Values of one number field against Update Card of the name, in turn;
 *   2. Get Board with Lists and Cards and Get Board Card Faces of two boards of 5,000 cards (5 lists
 *      of 1,000), one without fields and one whose 10 fields hold a value on every card, read in
 *      turn (paired rounds, so a change of the machine's load falls on both alike).
 * Prints the median and p90 of each in milliseconds, wall time and the process's CPU time, the first
 * rounds dropped, and the size of each answer.
 *
 *   BENCH_ENGINE=sqlite bash scripts/with-node.sh node --import tsx bench/custom-fields.ts
 */
import type { Engine } from '../src/storage/database-url.ts';
import { seedBoard, seedCards } from '../test/support/fixtures.ts';
import { bearer, buildTestApp } from '../test/support/harness.ts';
import { percentile } from './webhook-lag.ts';

const engine = (process.env.BENCH_ENGINE ?? 'sqlite') as Engine;
const CARDS = 5000;
const LISTS = 5;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 60);
const WARM = 10;
const t = await buildTestApp(engine);
const auth = bearer(t.tenant.apiKey);
const db = t.services.db;

async function board(): Promise<{ boardId: string; cardIds: string[] }> {
  const seeded = await seedBoard(t.services, t.tenant, { lists: LISTS });
  return { boardId: seeded.boardId, cardIds: await seedCards(t.services, t.tenant, seeded, CARDS / LISTS) };
}
const bare = await board();
const withFields = await board();

const fieldIds: string[] = [];
for (let f = 0; f < 10; f++) {
  const type = f % 2 === 0 ? 'number' : 'text';
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/v1/boards/${withFields.boardId}/custom-fields`,
    headers: auth,
    payload: { name: `Field ${f}`, type },
  });
  fieldIds.push(res.json().customField._id);
}
// every card holds all 10 values: written straight to the table, the cards' revisions moved as a change would
const values = withFields.cardIds.flatMap((cardId) =>
  fieldIds.map((fieldId, f) => ({ card_id: cardId, field_id: fieldId, text_value: f % 2 === 0 ? null : `value ${f}`, number_value: f % 2 === 0 ? f : null })),
);
for (let i = 0; i < values.length; i += 1000)
  await db
    .insertInto('card_field_values')
    .values(values.slice(i, i + 1000))
    .execute();
await db
  .updateTable('cards')
  .set((eb) => ({ version: eb('version', '+', 1) }))
  .where('board_id', '=', withFields.boardId)
  .execute();

interface Timed {
  wall: number[];
  cpu: number[];
  bytes: number;
}
const timed = (): Timed => ({ wall: [], cpu: [], bytes: 0 });
async function once(into: Timed, round: number, run: () => Promise<{ statusCode: number; body: string }>): Promise<void> {
  const c0 = process.cpuUsage();
  const start = process.hrtime.bigint();
  const res = await run();
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  const cpu = process.cpuUsage(c0);
  if (res.statusCode >= 300) throw new Error(`${res.statusCode} ${res.body}`);
  into.bytes = Buffer.byteLength(res.body);
  if (round < WARM) return;
  into.wall.push(wall);
  into.cpu.push((cpu.user + cpu.system) / 1000);
}
const p = (times: number[], at: number) =>
  percentile(
    [...times].sort((a, b) => a - b),
    at,
  ).toFixed(2);
const summary = (x: Timed) =>
  `median ${p(x.wall, 50)} ms, p90 ${p(x.wall, 90)} ms; CPU median ${p(x.cpu, 50)} ms (n=${x.wall.length}, ${(x.bytes / 1024).toFixed(0)} KiB)`;
const get = (url: string) => t.app.inject({ method: 'GET', url, headers: auth });

const reads = { board: timed(), boardFields: timed(), faces: timed(), facesFields: timed() };
for (let round = 0; round < ROUNDS; round++) {
  await once(reads.board, round, () => get(`/api/v1/boards/${bare.boardId}`));
  await once(reads.boardFields, round, () => get(`/api/v1/boards/${withFields.boardId}`));
  await once(reads.faces, round, () => get(`/api/v1/boards/${bare.boardId}/card-faces`));
  await once(reads.facesFields, round, () => get(`/api/v1/boards/${withFields.boardId}/card-faces`));
}

const card = withFields.cardIds[17] as string;
const rename = timed();
const setField = timed();
for (let round = 0; round < 200; round++) {
  await once(rename, round, () => t.app.inject({ method: 'PATCH', url: `/api/v1/cards/${card}`, headers: auth, payload: { name: `renamed ${round}` } }));
  await once(setField, round, () =>
    t.app.inject({ method: 'PATCH', url: `/api/v1/cards/${card}/custom-fields`, headers: auth, payload: { values: [{ field: fieldIds[0], value: round }] } }),
  );
}
const ratio = (a: Timed, b: Timed) =>
  `${(
    percentile(
      [...a.wall].sort((x, y) => x - y),
      50,
    ) /
      percentile(
        [...b.wall].sort((x, y) => x - y),
        50,
      )
  ).toFixed(2)}x wall, ${(
    percentile(
      [...a.cpu].sort((x, y) => x - y),
      50,
    ) /
      percentile(
        [...b.cpu].sort((x, y) => x - y),
        50,
      )
  ).toFixed(2)}x CPU`;
console.log(`engine ${engine}, ${CARDS} cards in ${LISTS} lists`);
console.log(`Update Card (name)             ${summary(rename)}`);
console.log(`Set Card Custom Field Values   ${summary(setField)}  (${ratio(setField, rename)})`);
console.log(`board read, no fields          ${summary(reads.board)}`);
console.log(`board read, 10 fields per card ${summary(reads.boardFields)}  (${ratio(reads.boardFields, reads.board)})`);
console.log(`board faces, no fields         ${summary(reads.faces)}`);
console.log(`board faces, 10 fields         ${summary(reads.facesFields)}  (${ratio(reads.facesFields, reads.faces)})`);
await t.dispose();
