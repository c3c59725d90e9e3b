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
import { ENGINES, openTestStorage, type TestStorage } from '../support/harness.ts';

const NAME = '\u0000name';

function colorNamed(db: TestStorage['storage']['db'], name: string) {
  return executeCompiledOnce(db, 'test: label colour by name', () => db.selectFrom('label_colors').select(['id', 'name']).where('name', '=', NAME).compile(), {
    [NAME]: name,
  });
}

describe('reads now [sqlite]', () => {
  let s: TestStorage;
  before(async () => {
    s = await openTestStorage('sqlite');
  });
  after(() => s.dispose());

  it('answers a read outside a transaction synchronously, and none inside one', async () => {
    const { db } = s.storage;
    const query = db.selectFrom('label_colors').select('id').compile();
    const rows = dialectOf(db).runDirectly(db, query, query.parameters);
    assert.ok(Array.isArray(rows) && rows.length > 0, 'the palette, read at once');
    await db.transaction().execute(async (trx) => {
      assert.equal(dialectOf(trx).runDirectly(trx, query, query.parameters), undefined, 'inside a transaction: through Kysely');
    });
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
