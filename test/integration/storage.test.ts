import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { Deadlock, ForeignKeyViolation, UniqueViolation } from '../../src/storage/errors.ts';
import { ENGINES, openTestStorage, type TestStorage } from '../support/harness.ts';

describe('SQLite settings', () => {
  let s: TestStorage;
  before(async () => {
    s = await openTestStorage('sqlite');
  });
  after(() => s.dispose());

  it('runs in WAL mode with foreign keys on and a busy timeout', async () => {
    const pragma = async (name: string) => Object.values((await sql.raw(`pragma ${name}`).execute(s.storage.db)).rows[0] as object)[0];
    assert.equal(await pragma('journal_mode'), 'wal');
    assert.equal(await pragma('foreign_keys'), 1);
    assert.equal(await pragma('busy_timeout'), 5000);
    assert.equal(await pragma('wal_autocheckpoint'), 10000);
  });
});

for (const engine of ENGINES) {
  describe(`schema [${engine}]`, () => {
    let s: TestStorage;
    before(async () => {
      s = await openTestStorage(engine);
    });
    after(() => s.dispose());

    it('enforces references: a card cannot name a list that does not exist', async () => {
      const now = new Date().toISOString();
      const attempt = s.storage.db
        .insertInto('cards')
        .values({
          id: 'ffffffffffffffffffffffff',
          company_id: 'ffffffffffffffffffffffff',
          team_id: 'ffffffffffffffffffffffff',
          board_id: 'ffffffffffffffffffffffff',
          list_id: 'ffffffffffffffffffffffff',
          name: 'orphan',
          creator_id: 'ffffffffffffffffffffffff',
          position: 1,
          start_date: null,
          due_date: null,
          complete_set_at: null,
          complete_updated_at: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await assert.rejects(attempt, (error) => error instanceof ForeignKeyViolation && error.cause !== undefined);
    });

    it('holds the fixed label palette with stable ids', async () => {
      const colors = await s.storage.db.selectFrom('label_colors').select(['id', 'name']).orderBy('position').execute();
      assert.equal(colors.length, 10);
      assert.deepEqual(colors[0], { id: '000000000000000000000001', name: 'green' });
    });

    it('throws a repeated key as UniqueViolation, from a transaction too, and other errors as they are', async () => {
      const repeat = s.storage.db.insertInto('label_colors').values({ id: '000000000000000000000001', name: 'again', hex: '#000000', position: 99 }).execute();
      await assert.rejects(repeat, (error) => error instanceof UniqueViolation && error.cause !== undefined);
      const inTransaction = s.storage.db
        .transaction()
        .execute((trx) => trx.insertInto('label_colors').values({ id: '000000000000000000000002', name: 'again', hex: '#000000', position: 99 }).execute());
      await assert.rejects(inTransaction, UniqueViolation);
      await assert.rejects(sql`select * from no_such_table`.execute(s.storage.db), (error) => !(error instanceof UniqueViolation) && error instanceof Error);
    });

    if (engine === 'postgres') {
      it('throws the victim of a deadlock as Deadlock, and lets the other transaction through', async () => {
        const [a, b] = ['000000000000000000000001', '000000000000000000000002'];
        const touch = (trx: typeof s.storage.db, id: string) =>
          trx
            .updateTable('label_colors')
            .set((eb) => ({ position: eb.ref('position') }))
            .where('id', '=', id)
            .execute();
        // Each holds its first row before either asks for the other's: a circle, whatever the timing.
        const signals: (() => void)[] = [];
        const held = [0, 1].map(() => new Promise<void>((resolve) => signals.push(resolve)));
        const both = Promise.all(held);
        const crossing = (first: string, second: string, holds: () => void) =>
          s.storage.db.transaction().execute(async (trx) => {
            await touch(trx, first);
            holds();
            await both;
            await touch(trx, second);
          });
        const outcomes = await Promise.allSettled([crossing(a, b, signals[0] as () => void), crossing(b, a, signals[1] as () => void)]);
        const failed = outcomes.filter((o) => o.status === 'rejected');
        assert.equal(failed.length, 1, 'one victim');
        assert.ok((failed[0] as PromiseRejectedResult).reason instanceof Deadlock, String((failed[0] as PromiseRejectedResult).reason));
      });
    }
  });
}
