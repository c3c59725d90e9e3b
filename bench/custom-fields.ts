/**
 * Custom fields against what exists (docs/benchmarks.md, "Custom fields"), in one process over the
 * real app (inject, no network), on the engine of BENCH_ENGINE (sqlite or postgres):
 *   1. Set Card Custom Field Values of one field against Update Card of the name, alternating;
 *   2. Get Board with Lists and Cards and Get Board Card Faces of a board of 5,000 cards (5 lists of
 *      1,000), before any field exists and after 10 fields hold a value on every card (stored views
 *      warmed first, as a board in use has them).
 * Prints the median and p90 of each, in milliseconds.
 *
 *   BENCH_ENGINE=sqlite bash scripts/with-node.sh node --import tsx bench/custom-fields.ts
 */
import type { Engine } from '../src/storage/database-url.ts';
import { cardRow, seedBoard } from '../test/support/fixtures.ts';
import { bearer, buildTestApp } from '../test/support/harness.ts';
import { percentile } from './webhook-lag.ts';

const engine = (process.env.BENCH_ENGINE ?? 'sqlite') as Engine;
const CARDS = 5000;
const LISTS = 5;
const t = await buildTestApp(engine);
const auth = bearer(t.tenant.apiKey);
const db = t.services.db;
const { boardId, listIds } = await seedBoard(t.services, t.tenant, { lists: LISTS });
const cardIds: string[] = [];
for (const [l, listId] of listIds.entries()) {
  const rows = Array.from({ length: CARDS / LISTS }, (_, i) =>
    cardRow({ company: t.tenant.companyId, team: t.tenant.teamId, board: boardId, _id: listId }, t.tenant.userId, `card ${l}-${i}`, (i + 1) * 1024),
  );
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto('cards')
      .values(rows.slice(i, i + 500))
      .execute();
  cardIds.push(...rows.map((r) => r.id));
}

async function time(n: number, run: (i: number) => Promise<{ statusCode: number; body: string }>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    const res = await run(i);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (res.statusCode >= 300) throw new Error(`${res.statusCode} ${res.body}`);
  }
  return times;
}
const summary = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  return `median ${percentile(sorted, 50).toFixed(2)} ms, p90 ${percentile(sorted, 90).toFixed(2)} ms (n=${times.length})`;
};
const get = (url: string) => t.app.inject({ method: 'GET', url, headers: auth });
const boardRead = () => get(`/api/v1/boards/${boardId}`);
const facesRead = () => get(`/api/v1/boards/${boardId}/card-faces`);

// warm the stored views the board read answers from, then measure
await time(3, boardRead);
const before = { board: await time(30, boardRead), faces: await time(30, facesRead) };

const fieldIds: string[] = [];
for (let f = 0; f < 10; f++) {
  const type = f % 2 === 0 ? 'number' : 'text';
  const res = await t.app.inject({ method: 'POST', url: `/api/v1/boards/${boardId}/custom-fields`, headers: auth, payload: { name: `Field ${f}`, type } });
  fieldIds.push(res.json().customField._id);
}
// every card holds all 10 values: written straight to the table, then every view rebuilt once
const values = cardIds.flatMap((cardId) =>
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
  .execute();
await time(3, boardRead);
const after = { board: await time(30, boardRead), faces: await time(30, facesRead) };

const card = cardIds[17] as string;
const rename: number[] = [];
const setField: number[] = [];
for (let round = 0; round < 200; round++) {
  rename.push(...(await time(1, () => t.app.inject({ method: 'PATCH', url: `/api/v1/cards/${card}`, headers: auth, payload: { name: `renamed ${round}` } }))));
  setField.push(
    ...(await time(1, () =>
      t.app.inject({ method: 'PATCH', url: `/api/v1/cards/${card}/custom-fields`, headers: auth, payload: { values: [{ field: fieldIds[0], value: round }] } }),
    )),
  );
}
console.log(`engine ${engine}, ${CARDS} cards in ${LISTS} lists`);
console.log(`Update Card (name)             ${summary(rename.slice(20))}`);
console.log(`Set Card Custom Field Values   ${summary(setField.slice(20))}`);
console.log(`board read, no fields          ${summary(before.board)}`);
console.log(`board read, 10 fields per card ${summary(after.board)}`);
console.log(`board faces, no fields         ${summary(before.faces)}`);
console.log(`board faces, 10 fields         ${summary(after.faces)}`);
await t.dispose();
