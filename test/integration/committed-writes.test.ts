/**
 * `Dialect.onCommittedWrites` tells a listener of the tables a statement wrote once, and only once,
 * the write has committed, on every path a statement can take: Kysely outside a transaction, a
 * Kysely transaction (at its commit; never for one rolled back), a statement compiled once run
 * directly, and transactions that share a commit (SQLite). The authentication cache relies on it (auth-instances.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { executeCompiledOnce } from '../../src/storage/dialect.ts';
import type { TableWrite } from '../../src/storage/table-writes.ts';
import { ENGINES, openTestStorage, type TestStorage } from '../support/harness.ts';

const NOBODY = 'f'.repeat(24);

for (const engine of ENGINES) {
  describe(`writes told once committed [${engine}]`, () => {
    let test: TestStorage;
    let told: TableWrite[][];
    let stop: () => void;

    before(async () => {
      test = await openTestStorage(engine);
      stop = test.storage.dialect.onCommittedWrites((writes) => told.push([...writes]));
    });
    beforeEach(() => {
      told = [];
    });
    after(async () => {
      stop?.();
      await test?.dispose();
    });

    const revokeNobody = (db = test.storage.db) => db.updateTable('api_keys').set({ revoked_at: 'x' }).where('id', '=', NOBODY).execute();

    it('tells a write made outside a transaction as it answers, and nothing for a read', async () => {
      await test.storage.db.selectFrom('api_keys').select('id').execute();
      assert.deepEqual(told, []);
      await revokeNobody();
      assert.deepEqual(told, [[{ table: 'api_keys', columns: ['revoked_at'] }]]);
    });

    it('tells the writes of a transaction when it commits, not before', async () => {
      await test.storage.db.transaction().execute(async (trx) => {
        await revokeNobody(trx);
        await trx.deleteFrom('team_members').where('user_id', '=', NOBODY).execute();
        assert.deepEqual(told, [], 'nothing told before the commit');
      });
      assert.deepEqual(told, [
        [
          { table: 'api_keys', columns: ['revoked_at'] },
          { table: 'team_members', columns: null },
        ],
      ]);
    });

    it('tells nothing of a transaction rolled back', async () => {
      await assert.rejects(
        test.storage.db.transaction().execute(async (trx) => {
          await revokeNobody(trx);
          throw new Error('changed my mind');
        }),
        /changed my mind/,
      );
      assert.deepEqual(told, []);
    });

    it('tells a statement compiled once and run directly', async () => {
      const db = test.storage.db;
      await executeCompiledOnce(db, 'test: revoke by id', (param) => db.updateTable('api_keys').set({ revoked_at: 'y' }).where('id', '=', param('id')), {
        id: NOBODY,
      });
      assert.deepEqual(told, [[{ table: 'api_keys', columns: ['revoked_at'] }]]);
    });

    it('tells the writes of transactions started together once each has committed', async () => {
      const remove = (user: string) =>
        test.storage.db.transaction().execute(async (trx) => {
          await trx.deleteFrom('company_members').where('user_id', '=', user).execute();
          return user;
        });
      assert.deepEqual(await Promise.all([remove(NOBODY), remove('e'.repeat(24))]), [NOBODY, 'e'.repeat(24)]);
      assert.deepEqual(told, [[{ table: 'company_members', columns: null }], [{ table: 'company_members', columns: null }]]);
    });
  });
}
