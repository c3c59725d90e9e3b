/**
 * How long Delete Board's mark (one transaction) and the sweep of its rows take for a board of N
 * cards (each with a checklist and a comment), on one engine: `node bench/delete-board.ts sqlite 10000`.
 */
import { bootstrap } from '../src/domain/account/bootstrap.ts';
import { sweepDeleted } from '../src/domain/boards/sweep.ts';
import { newId, nowIso } from '../src/domain/shared/ids.ts';
import { inTransaction } from '../src/domain/shared/transaction.ts';
import type { Engine } from '../src/storage/database-url.ts';
import { markBoardDeleted } from '../src/storage/repositories/lifecycle.ts';
import { cardRow } from '../test/support/fixtures.ts';
import { openTestStorage, serviceContext } from '../test/support/harness.ts';

const engine = (process.argv[2] ?? 'sqlite') as Engine;
const cards = Number(process.argv[3] ?? 10_000);
const test = await openTestStorage(engine);
const ctx = serviceContext(test.storage);
const tenant = await bootstrap(ctx, { company: 'Acme', team: 'Core', email: 'o@acme.test', fullName: 'Olive' });
const at = nowIso();
const owned = { company_id: tenant.companyId, team_id: tenant.teamId, creator_id: tenant.userId, created_at: at, updated_at: at, version: 0 };
const boardId = newId();
const listId = newId();
await ctx.db
  .insertInto('boards')
  .values({ id: boardId, name: 'Big', ...owned })
  .execute();
await ctx.db
  .insertInto('lists')
  .values({ id: listId, board_id: boardId, name: 'L', position: 0, ...owned })
  .execute();
for (let start = 0; start < cards; start += 500) {
  const rows = Array.from({ length: 500 }, (_, i) =>
    cardRow({ _id: listId, board: boardId, company: tenant.companyId, team: tenant.teamId }, tenant.userId, `C${start + i}`, start + i),
  );
  await ctx.db.insertInto('cards').values(rows).execute();
  await ctx.db
    .insertInto('checklists')
    .values(rows.map((c) => ({ id: newId(), card_id: c.id, name: 'S', position: 0, ...owned })))
    .execute();
  await ctx.db
    .insertInto('comments')
    .values(rows.map((c) => ({ id: newId(), card_id: c.id, content: 'N', ...owned })))
    .execute();
}
let started = performance.now();
await inTransaction(ctx, (trx) => markBoardDeleted(trx, boardId, nowIso()));
const markMs = performance.now() - started;
started = performance.now();
const swept = await sweepDeleted(ctx, { batchCards: 200 });
const sweepMs = performance.now() - started;
console.log(
  JSON.stringify({
    engine,
    cards,
    markMs: Math.round(markMs),
    sweepMs: Math.round(sweepMs),
    batches: swept.batches,
    perBatchMs: Math.round(sweepMs / swept.batches),
  }),
);
await test.dispose();
