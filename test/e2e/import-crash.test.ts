/**
 * An import of a Trello board of 3,000 cards in a real server process that is killed (SIGKILL) in
 * the middle of it: nothing of the board is ever visible, the import reads as failed once its lease
 * has run out, and the next sweep (here the purge command) removes what it wrote. Both engines.
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
import type { Executor } from '../../src/storage/database.ts';
import { runTaskboard, serveInChild } from '../support/cli.ts';
import { bearer, ENGINES, openTestStorage, serviceContext, type TestStorage, testConfig } from '../support/harness.ts';
import { eventually } from '../support/receiver.ts';
import { bigTrelloExport } from '../support/trello.ts';

const CARDS = 3000;

async function count(db: Executor, table: 'boards' | 'lists' | 'cards' | 'labels', boardId: string, live = false): Promise<number> {
  let query = db.selectFrom(table).select((eb) => eb.fn.countAll<number | string>().as('n'));
  query = table === 'boards' ? query.where('id', '=', boardId) : query.where('board_id', '=', boardId);
  if (live && table !== 'labels') query = query.where('deleted_at', 'is', null);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

for (const engine of ENGINES) {
  describe(`a Trello import of ${CARDS} cards by a server killed mid-import [${engine}]`, () => {
    let test: TestStorage;
    let tenant: BootstrapResult;
    const uploads = mkdtempSync(join(tmpdir(), 'taskboard-import-crash-'));

    before(async () => {
      test = await openTestStorage(engine);
      tenant = await bootstrap(serviceContext(test.storage, uploads), { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' });
    });
    after(async () => {
      await test.dispose();
      rmSync(uploads, { recursive: true, force: true });
    });

    it('never shows the half board; the import reads as failed after its lease, and the sweep removes it', async () => {
      const db = test.storage.db;
      const connectionName = `import-crash-${process.pid}`;
      const env = {
        ...process.env,
        DATABASE_URL: engine === 'postgres' ? `${test.url}${test.url.includes('?') ? '&' : '?'}application_name=${connectionName}` : test.url,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        RATE_LIMIT_ENABLED: 'false',
        UPLOAD_DIR: uploads,
        IMPORT_LEASE_MS: '1000',
      };
      const { server, address } = await serveInChild(env);
      let importId: string;
      let boardId: string;
      try {
        const form = new FormData();
        form.append('file', new Blob([JSON.stringify(bigTrelloExport(CARDS))], { type: 'application/json' }), 'board.json');
        const res = await fetch(`${address}/api/v1/imports/trello?teamId=${tenant.teamId}`, { method: 'POST', body: form, headers: bearer(tenant.apiKey) });
        const body = await res.text();
        assert.equal(res.status, 202, body);
        importId = (JSON.parse(body) as { import: { _id: string } }).import._id;
        boardId = (await db.selectFrom('imports').select('board_id').where('id', '=', importId).executeTakeFirstOrThrow()).board_id;
        // wait until some cards are written (a condition, checked as often as the database answers), then kill
        while ((await count(db, 'cards', boardId)) === 0) await new Promise((resolve) => setImmediate(resolve));
        server.kill('SIGKILL');
        await once(server, 'exit');
      } finally {
        if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
      }
      if (engine === 'postgres') {
        const backends = async () =>
          Number((await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where application_name = ${connectionName}`.execute(db)).rows[0]?.n);
        await eventually(backends, (n) => n === 0, 20_000, "the killed server's database connections to end");
      }
      const left = await count(db, 'cards', boardId);
      assert.ok(left > 0 && left < CARDS, `killed in the middle of the import (${left} of ${CARDS} cards written)`);
      assert.deepEqual([await count(db, 'boards', boardId, true), await count(db, 'lists', boardId, true), await count(db, 'cards', boardId, true)], [0, 0, 0]);

      const app = await buildApp({ config: testConfig({ uploadDir: uploads }), storage: test.storage, rateLimiter: null, logger: false });
      try {
        assert.equal((await app.inject({ method: 'GET', url: `/api/v1/boards/${boardId}`, headers: bearer(tenant.apiKey) })).statusCode, 404);
        const boards = await app.inject({ method: 'GET', url: '/api/v1/boards', headers: bearer(tenant.apiKey) });
        assert.deepEqual(boards.json().boards, []);
        // once the lease has run out, the import reads as failed
        const failed = await eventually(
          async () => (await app.inject({ method: 'GET', url: `/api/v1/imports/${importId}`, headers: bearer(tenant.apiKey) })).json().import,
          (record) => record.status === 'failed',
          20_000,
          'the lease to run out',
        );
        assert.match(failed.error, /interrupted/);
      } finally {
        await app.close();
      }
      const purge = await runTaskboard(['purge-attachments', '--json'], { DATABASE_URL: test.url, UPLOAD_DIR: uploads });
      assert.equal(purge.code, 0, purge.stderr);
      for (const table of ['boards', 'lists', 'cards', 'labels'] as const) assert.equal(await count(db, table, boardId), 0, table);
    });
  });
}
