/**
 * Deleting a board of 2,000 cards in a real server process that is killed (SIGKILL) in the middle
 * of the sweep: the board is then either whole or hidden-and-swept, never half visible; the next
 * sweep (here the purge command) finishes it. Both engines.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.ts';
import { type BootstrapResult, bootstrap } from '../../src/domain/account/bootstrap.ts';
import { newId, nowIso } from '../../src/domain/shared/ids.ts';
import type { Executor } from '../../src/storage/database.ts';
import { runTaskboard, serveInChild } from '../support/cli.ts';
import { cardRow } from '../support/fixtures.ts';
import { bearer, ENGINES, openTestStorage, serviceContext, type TestStorage, testConfig } from '../support/harness.ts';
import { eventually } from '../support/receiver.ts';

const CARDS = 2000;

async function count(db: Executor, table: 'boards' | 'lists' | 'cards' | 'checklists' | 'comments' | 'labels', boardId: string, live = false): Promise<number> {
  const column = table === 'checklists' || table === 'comments' ? null : table === 'boards' ? 'id' : 'board_id';
  let query = db.selectFrom(table).select((eb) => eb.fn.countAll<number | string>().as('n'));
  if (column) query = query.where(column, '=', boardId);
  if (live && (table === 'boards' || table === 'lists' || table === 'cards')) query = query.where('deleted_at', 'is', null);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

/** A board with two lists, a label and CARDS cards, each with a checklist and a comment: written straight to storage. */
async function seedBigBoard(db: Executor, tenant: BootstrapResult): Promise<string> {
  const at = nowIso();
  const boardId = newId();
  const owned = { company_id: tenant.companyId, team_id: tenant.teamId, creator_id: tenant.userId, created_at: at, updated_at: at, version: 0 };
  await db
    .insertInto('boards')
    .values({ id: boardId, name: 'Big', ...owned })
    .execute();
  const listIds = [newId(), newId()];
  for (const [position, id] of listIds.entries())
    await db
      .insertInto('lists')
      .values({ id, board_id: boardId, name: `L${position}`, position, ...owned })
      .execute();
  await db
    .insertInto('labels')
    .values({ id: newId(), board_id: boardId, name: 'Bug', color_id: '000000000000000000000001', ...owned })
    .execute();
  for (let start = 0; start < CARDS; start += 100) {
    const cards = Array.from({ length: 100 }, (_, i) =>
      cardRow({ _id: listIds[i % 2] as string, board: boardId, company: tenant.companyId, team: tenant.teamId }, tenant.userId, `Card ${start + i}`, start + i),
    );
    await db.insertInto('cards').values(cards).execute();
    await db
      .insertInto('checklists')
      .values(cards.map((c) => ({ id: newId(), card_id: c.id, name: 'Steps', position: 0, ...owned })))
      .execute();
    await db
      .insertInto('comments')
      .values(cards.map((c) => ({ id: newId(), card_id: c.id, content: 'Note', ...owned })))
      .execute();
  }
  return boardId;
}

for (const engine of ENGINES) {
  describe(`a board of ${CARDS} cards deleted by a server killed mid-sweep [${engine}]`, () => {
    let test: TestStorage;
    let tenant: BootstrapResult;
    let boardId: string;
    const uploads = mkdtempSync(join(tmpdir(), 'taskboard-crash-'));

    before(async () => {
      test = await openTestStorage(engine);
      tenant = await bootstrap(serviceContext(test.storage, uploads), { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' });
      boardId = await seedBigBoard(test.storage.db, tenant);
    });
    after(async () => {
      await test.dispose();
      rmSync(uploads, { recursive: true, force: true });
    });

    it('leaves it hidden and partly swept, never half visible; the next sweep finishes it', async () => {
      const db = test.storage.db;
      // PostgreSQL: the server's connections carry a name of their own, to wait below for them to end
      const connectionName = `lifecycle-crash-${process.pid}`;
      const env = {
        ...process.env,
        DATABASE_URL: engine === 'postgres' ? `${test.url}${test.url.includes('?') ? '&' : '?'}application_name=${connectionName}` : test.url,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        RATE_LIMIT_ENABLED: 'false',
        UPLOAD_DIR: uploads,
        SWEEP_BATCH_CARDS: '2',
        SWEEP_INTERVAL_MS: '100',
      };
      const { server, address } = await serveInChild(env);
      try {
        const res = await fetch(`${address}/api/v1/boards/${boardId}`, { method: 'DELETE', headers: bearer(tenant.apiKey) });
        assert.equal(res.status, 200, await res.text());
        // wait until the sweep has removed some cards (a condition, checked as often as the database answers), then kill
        while ((await count(db, 'cards', boardId)) === CARDS) await new Promise((resolve) => setImmediate(resolve));
        server.kill('SIGKILL');
        await once(server, 'exit');
      } finally {
        if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
      }
      // A COMMIT the server sent before it died may still be applied by its PostgreSQL backend: what is
      // left is known once its backends are gone (each ends its transaction, one way or the other).
      if (engine === 'postgres') {
        const backends = async () =>
          Number((await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where application_name = ${connectionName}`.execute(db)).rows[0]?.n);
        await eventually(backends, (n) => n === 0, 20_000, "the killed server's database connections to end");
      }

      const left = await count(db, 'cards', boardId);
      assert.ok(left > 0 && left < CARDS, `killed in the middle of the sweep (${left} of ${CARDS} cards left)`);
      // hidden: nothing of the board is live, though rows remain
      assert.deepEqual([await count(db, 'boards', boardId, true), await count(db, 'lists', boardId, true), await count(db, 'cards', boardId, true)], [0, 0, 0]);
      assert.equal(await count(db, 'boards', boardId), 1, 'the board row goes last');
      // what a client sees: the board, its lists and a remaining card are gone
      const app = await buildApp({ config: testConfig({ uploadDir: uploads }), storage: test.storage, rateLimiter: null, logger: false });
      try {
        const card = await db.selectFrom('cards').select('id').where('board_id', '=', boardId).executeTakeFirstOrThrow();
        for (const url of [`/api/v1/boards/${boardId}`, `/api/v1/cards/${card.id}`]) {
          const read = await app.inject({ method: 'GET', url, headers: bearer(tenant.apiKey) });
          assert.equal(read.statusCode, 404, url);
        }
        const boards = await app.inject({ method: 'GET', url: '/api/v1/boards?archived=true', headers: bearer(tenant.apiKey) });
        assert.deepEqual(boards.json().boards, []);
      } finally {
        await app.close();
      }

      // the next sweep (the purge command runs one) finishes the board
      const purge = await runTaskboard(['purge-attachments', '--json'], { DATABASE_URL: test.url, UPLOAD_DIR: uploads });
      assert.equal(purge.code, 0, purge.stderr);
      assert.equal(JSON.parse(purge.stdout).swept.cards, left);
      for (const table of ['boards', 'lists', 'cards', 'labels', 'checklists', 'comments'] as const) {
        assert.equal(await count(db, table, boardId), 0, table);
      }
    });
  });
}
