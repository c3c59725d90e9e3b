/**
 * SQLite answers a read outside any transaction at once (`Dialect.runDirectly`), without Kysely's
 * connection lock: the hot reads (authentication, the card's view) cost a third less under load.
 * What must not change: a read never sees the uncommitted rows of a transaction that holds the
 * connection across awaits; it waits for that transaction, as every read did before.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/domain/shared/ids.ts';
import { dialectOf, executeCompiledOnce } from '../../src/storage/dialect.ts';
import { ENGINES, needsPostgres, openTestStorage, type TestStorage } from '../support/harness.ts';

function colorNamed(db: TestStorage['storage']['db'], name: string) {
  return executeCompiledOnce(
    db,
    'test: label colour by name',
    (param) => db.selectFrom('label_colors').select(['id', 'name']).where('name', '=', param('name')),
    { name },
  );
}

describe('reads now [sqlite]', () => {
  let s: TestStorage;
  before(async () => {
    s = await openTestStorage('sqlite');
  });
  after(() => s.dispose());

  it('answers a statement synchronously, outside a transaction and in the one that holds the connection; a write there is told at the commit', async () => {
    const { db } = s.storage;
    const dialect = dialectOf(db);
    const query = db.selectFrom('label_colors').select('id').compile();
    const rows = dialect.runDirectly(db, query, query.parameters);
    assert.ok(Array.isArray(rows) && rows.length > 0, 'the palette, read at once');
    const name = `in-transaction-${Date.now()}`;
    const told: string[] = [];
    const stop = dialect.onCommittedWrites((writes) => told.push(...writes.map((write) => write.table)));
    try {
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('label_colors').values({ id: newId(), name, hex: '#654321', position: 998 }).execute();
        const mine = trx.selectFrom('label_colors').select('id').where('name', '=', name).compile();
        const seen = dialectOf(trx).runDirectly(trx, mine, mine.parameters);
        assert.ok(Array.isArray(seen) && seen.length === 1, 'the transaction reads its own row at once');
        const write = trx.deleteFrom('label_colors').where('name', '=', name).compile();
        assert.deepEqual(dialectOf(trx).runDirectly(trx, write, write.parameters), [], 'a write runs at once too');
        assert.equal((await colorNamed(trx, name)).length, 0, 'and the transaction sees it');
        assert.deepEqual(told, [], 'nothing is told before the commit');
      });
    } finally {
      stop();
    }
    assert.deepEqual(told, ['label_colors', 'label_colors'], 'both writes told once committed');
    assert.equal((await colorNamed(db, name)).length, 0);
  });

  it("runs a statement sent with the commit after the transaction's own ones; its failure fails the transaction, which stores nothing", async () => {
    const { db } = s.storage;
    const dialect = dialectOf(db);
    const name = `with-commit-${Date.now()}`;
    const color = (id: string, position: number) => db.insertInto('label_colors').values({ id, name, hex: '#abcdef', position }).compile();
    // held: the transaction's own read does not see it; it is stored once committed
    const kept = newId();
    await db.transaction().execute(async (trx) => {
      await trx.executeQuery(dialect.sentWithCommit(color(kept, 990)));
      assert.equal((await colorNamed(trx, name)).length, 0, 'held until the commit');
    });
    assert.deepEqual(
      (await colorNamed(db, name)).map((row) => row.id),
      [kept],
    );
    // the same id again fails only at the commit, and takes the transaction's other row with it
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await trx.executeQuery(color(newId(), 991));
        await trx.executeQuery(dialect.sentWithCommit(color(kept, 992)));
      }),
    );
    assert.deepEqual(
      (await colorNamed(db, name)).map((row) => row.id),
      [kept],
    );
  });

  it('a read waits for a transaction that holds the connection and never sees its uncommitted rows', async () => {
    const { db } = s.storage;
    const name = `uncommitted-${Date.now()}`;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inserted!: () => void;
    const didInsert = new Promise<void>((resolve) => (inserted = resolve));
    const transaction = db.transaction().execute(async (trx) => {
      await trx.insertInto('label_colors').values({ id: newId(), name, hex: '#123456', position: 999 }).execute();
      inserted();
      await held;
    });
    await didInsert;
    let answered: { id: string }[] | undefined;
    const read = colorNamed(db, name).then((rows) => (answered = rows));
    // give the read every chance to answer early: several turns of the event loop
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(answered, undefined, 'the read answered while the transaction was open');
    release();
    await transaction;
    assert.equal((await read).length, 1, 'after the commit the read sees the row');
  });
});

for (const engine of ENGINES) {
  describe(`reads through executeCompiledOnce [${engine}]`, () => {
    let s: TestStorage;
    before(async () => {
      s = await openTestStorage(engine);
    });
    after(() => s.dispose());

    it('answer the same rows inside and outside a transaction', async () => {
      const { db } = s.storage;
      const [first] = await db.selectFrom('label_colors').select('name').orderBy('position').limit(1).execute();
      assert.ok(first);
      const outside = await colorNamed(db, first.name);
      const inside = await db.transaction().execute((trx) => colorNamed(trx as typeof db, first.name));
      assert.equal(outside.length, 1);
      assert.deepEqual(inside, outside);
    });
  });
}

describe('a query compiled once, on both engines at once', needsPostgres, () => {
  let storages: TestStorage[];
  before(async () => {
    storages = [await openTestStorage('sqlite'), await openTestStorage('postgres')];
  });
  after(() => Promise.all(storages.map((s) => s.dispose())));

  it('is compiled for each engine under one name, its id list given as that engine takes it', async () => {
    // each engine twice, in turn: a text compiled for one would fail on the other
    for (const { storage } of [...storages, ...storages]) {
      const { db } = storage;
      const dialect = dialectOf(db);
      const ids = (await db.selectFrom('label_colors').select('id').orderBy('id').limit(2).execute()).map((row) => row.id);
      assert.equal(ids.length, 2);
      const rows = await executeCompiledOnce(
        db,
        'test: label colours by id',
        (param) =>
          db
            .selectFrom('label_colors')
            .select('id')
            .where(dialect.inIdList('id', param('ids')))
            .orderBy('id'),
        { ids: dialect.idList(ids) },
      );
      assert.deepEqual(
        rows.map((row) => row.id),
        ids,
      );
    }
  });
});
