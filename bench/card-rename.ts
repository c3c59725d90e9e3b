/**
 * A card's rename through Update Card on a board of 20,000 cards (4 lists), in one process over the
 * real app (inject), on the engine of BENCH_ENGINE (default postgres): 420 renames of cards spread
 * over the board, the first 20 dropped, p50 of the wall and of the process's CPU time. A rename
 * writes the card's search entry again, so this is what an index of the entries costs a write.
 *
 *   BENCH_ENGINE=postgres bash scripts/with-node.sh node --import tsx bench/card-rename.ts
 */
import { seedBoard, seedCards } from '../test/support/fixtures.ts';
import { bearer, buildTestApp } from '../test/support/harness.ts';

const engine = (process.env.BENCH_ENGINE ?? 'postgres') as 'postgres' | 'sqlite';
const t = await buildTestApp(engine);
const auth = bearer(t.tenant.apiKey);
const board = await seedBoard(t.services, t.tenant, { lists: 4 });
const ids = await seedCards(t.services, t.tenant, board, 5000);
const wall: number[] = [];
const cpu: number[] = [];
for (let round = 0; round < 420; round++) {
  const card = ids[(round * 37) % ids.length];
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const res = await t.app.inject({ method: 'PATCH', url: `/api/v1/cards/${card}`, headers: auth, payload: { name: `renamed ${round}` } });
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  if (res.statusCode !== 200) throw new Error(res.body);
  if (round < 20) continue;
  wall.push(ms);
  cpu.push((c.user + c.system) / 1000);
}
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!.toFixed(2);
console.log(`rename ${engine}: wall p50 ${med(wall)} ms, node CPU p50 ${med(cpu)} ms (n=${wall.length})`);
await t.dispose();
