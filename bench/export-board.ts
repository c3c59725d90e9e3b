/**
 * How long Export Board takes for a board of N cards (each with a checklist item, a comment and a
 * label), and how far the process's resident memory rises over what it was before, read every 5 ms
 * while the document is written: `node --import tsx bench/export-board.ts sqlite 5000`.
 */

import { bootstrap } from '../src/domain/account/bootstrap.ts';
import { authenticate } from '../src/domain/account/service.ts';
import { exportBoard } from '../src/domain/boards/export.ts';
import { newId, nowIso } from '../src/domain/shared/ids.ts';
import type { Engine } from '../src/storage/database-url.ts';
import { cardRow, seedBoard } from '../test/support/fixtures.ts';
import { openTestStorage, serviceContext } from '../test/support/harness.ts';

const engine = (process.argv[2] ?? 'sqlite') as Engine;
const cards = Number(process.argv[3] ?? 5000);
const test = await openTestStorage(engine);
const ctx = serviceContext(test.storage);
const tenant = await bootstrap(ctx, { company: 'Acme', team: 'Core', email: 'o@acme.test', fullName: 'Olive' });
const board = await seedBoard(ctx, tenant, { lists: 5, labels: 3 });
const at = nowIso();
const owned = { company_id: tenant.companyId, team_id: tenant.teamId, creator_id: tenant.userId, created_at: at, updated_at: at, version: 0 };
for (let start = 0; start < cards; start += 500) {
  const listId = board.listIds[(start / 500) % board.listIds.length] as string;
  const rows = Array.from({ length: Math.min(500, cards - start) }, (_, i) =>
    cardRow({ _id: listId, board: board.boardId, company: tenant.companyId, team: tenant.teamId }, tenant.userId, `Card ${start + i}`, start + i),
  );
  await ctx.db.insertInto('cards').values(rows).execute();
  const checklists = rows.map((c) => ({ id: newId(), card_id: c.id, name: 'Steps', position: 0, ...owned }));
  await ctx.db.insertInto('checklists').values(checklists).execute();
  await ctx.db
    .insertInto('checklist_items')
    .values(
      checklists.map((c) => ({
        id: newId(),
        checklist_id: c.id,
        card_id: c.card_id,
        name: 'Step',
        position: 0,
        date: null,
        complete_status: 0,
        complete_set_at: null,
        ...owned,
      })),
    )
    .execute();
  await ctx.db
    .insertInto('comments')
    .values(rows.map((c) => ({ id: newId(), card_id: c.id, content: 'A comment of some length, as people write them.', ...owned })))
    .execute();
  await ctx.db
    .insertInto('card_labels')
    .values(rows.map((c) => ({ card_id: c.id, label_id: board.labelIds[0] as string, created_at: at })))
    .execute();
}
const caller = await authenticate(ctx, tenant.apiKey);
global.gc?.();
const before = process.memoryUsage.rss();
let peak = before;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
}, 5);
const started = performance.now();
let bytes = 0;
const exported = await exportBoard(ctx, caller, board.boardId, {});
for await (const chunk of exported.chunks) {
  bytes += Buffer.byteLength(chunk);
  peak = Math.max(peak, process.memoryUsage.rss());
}
const ms = performance.now() - started;
clearInterval(sampler);
await test.dispose();
console.log(JSON.stringify({ engine, cards, ms: Math.round(ms), documentMB: +(bytes / 1e6).toFixed(1), rssGrowthMB: +((peak - before) / 1e6).toFixed(1) }));
