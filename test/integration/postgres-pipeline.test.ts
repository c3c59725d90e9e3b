/**
 * PostgreSQL transactions sent in fewer round trips (src/storage/engine/postgres-driver.ts) behave
 * as they would statement by statement: the BEGIN really opens the transaction, a statement held for
 * the COMMIT (`Dialect.sentWithCommit`) or for the next statement (`Dialect.sentWithNext`) is
 * committed with the rest, and its failure fails the transaction with its own error and commits
 * nothing; the connection is clean for the next transaction. What is asserted is what is stored and
 * what is answered; how many round trips it took is the bench's business (docs/benchmarks.md).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { type CompiledQuery, sql } from 'kysely';
import { UniqueViolation } from '../../src/storage/errors.ts';
import { openTestStorage, type TestStorage } from '../support/harness.ts';

describe('PostgreSQL transactions pipelined', () => {
  let test: TestStorage;

  before(async () => {
    test = await openTestStorage('postgres');
    await sql`create table pipeline_probe (id integer primary key)`.execute(test.storage.db);
  });
  beforeEach(async () => {
    await sql`delete from pipeline_probe`.execute(test.storage.db);
  });
  after(async () => {
    await test?.dispose();
  });

  type Db = TestStorage['storage']['db'];
  const insert = (db: Db, id: number) =>
    db
      .insertInto('pipeline_probe' as never)
      .values({ id } as never)
      .compile();
  const held = (db: Db, id: number) => test.storage.dialect.sentWithCommit(insert(db, id));
  const beforeNext = (db: Db, id: number) => test.storage.dialect.sentWithNext(insert(db, id));
  const count = (db: Db) => sql<{ n: string }>`select count(*)::text as n from pipeline_probe`.compile(db);
  /** One transaction running `steps` in order. */
  const transaction = (...steps: ((trx: Db) => CompiledQuery)[]) =>
    test.storage.db.transaction().execute(async (trx) => {
      for (const step of steps) await trx.executeQuery(step(trx));
    });
  /** One transaction running `steps` in order, then thrown out (rolled back). */
  const rolledBack = async (...steps: ((trx: Db) => CompiledQuery)[]) => {
    const work = () =>
      test.storage.db.transaction().execute(async (trx) => {
        for (const step of steps) await trx.executeQuery(step(trx));
        throw new Error('changed my mind');
      });
    await assert.rejects(work, /changed my mind/);
  };
  const stored = async () => (await sql<{ id: number }>`select id from pipeline_probe order by id`.execute(test.storage.db)).rows.map((row) => row.id);

  it('a transaction that runs nothing answers, and leaves the pool clean', async () => {
    assert.equal(await test.storage.db.transaction().execute(async () => 'nothing'), 'nothing');
    await transaction((trx) => insert(trx, 1));
    assert.deepEqual(await stored(), [1]);
  });

  it('commits the statements of a transaction, and its first statement runs inside it', async () => {
    await transaction(
      (trx) => insert(trx, 1),
      (trx) => insert(trx, 2),
    );
    assert.deepEqual(await stored(), [1, 2]);

    // the first statement ran inside the transaction: a failure after it undoes it
    await rolledBack((trx) => insert(trx, 3));
    assert.deepEqual(await stored(), [1, 2]);
  });

  it('commits a statement held for the COMMIT with the rest', async () => {
    await transaction(
      (trx) => insert(trx, 1),
      (trx) => held(trx, 2),
    );
    assert.deepEqual(await stored(), [1, 2]);
  });

  it('a held statement that fails fails the commit with its own error, and nothing is committed', async () => {
    await test.storage.db
      .insertInto('pipeline_probe' as never)
      .values({ id: 7 } as never)
      .execute();
    // 7 is taken already: the held insert fails only when sent, with the COMMIT
    await assert.rejects(
      transaction(
        (trx) => insert(trx, 1),
        (trx) => held(trx, 7),
      ),
      (error: unknown) => error instanceof UniqueViolation,
    );
    assert.deepEqual(await stored(), [7]);
    // the connection is clean again: the next transactions on the pool commit
    for (let id = 10; id < 10 + 12; id++) await transaction((trx) => insert(trx, id));
    assert.equal((await stored()).length, 13);
  });

  it('a statement sent with the next one runs before it, in the transaction', async () => {
    const seen = await test.storage.db.transaction().execute(async (trx) => {
      await trx.executeQuery(insert(trx, 1));
      await trx.executeQuery(beforeNext(trx, 2));
      return (await trx.executeQuery(count(trx))).rows[0]?.n;
    });
    assert.equal(seen, '2', 'the next statement saw it');
    assert.deepEqual(await stored(), [1, 2]);
  });

  it('a statement sent with the next one that fails fails that one with its own error, and nothing is committed', async () => {
    await test.storage.db
      .insertInto('pipeline_probe' as never)
      .values({ id: 7 } as never)
      .execute();
    await assert.rejects(
      test.storage.db.transaction().execute(async (trx) => {
        await trx.executeQuery(insert(trx, 1));
        await trx.executeQuery(beforeNext(trx, 7));
        await trx.executeQuery(count(trx));
      }),
      (error: unknown) => error instanceof UniqueViolation,
    );
    assert.deepEqual(await stored(), [7]);
    // with nothing after it, it goes with the COMMIT
    await transaction((trx) => beforeNext(trx, 8));
    assert.deepEqual(await stored(), [7, 8]);
  });

  it('a held statement of a transaction rolled back stores nothing', async () => {
    await rolledBack(
      (trx) => insert(trx, 1),
      (trx) => held(trx, 2),
    );
    assert.deepEqual(await stored(), []);
  });

  it('a transaction that only holds a statement commits it', async () => {
    await transaction((trx) => held(trx, 5));
    assert.deepEqual(await stored(), [5]);
  });

  it('a statement failing with the BEGIN leaves the transaction to roll back, and the pool clean', async () => {
    await test.storage.db
      .insertInto('pipeline_probe' as never)
      .values({ id: 1 } as never)
      .execute();
    await assert.rejects(
      transaction((trx) => insert(trx, 1)),
      (error: unknown) => error instanceof UniqueViolation,
    );
    await transaction(
      (trx) => insert(trx, 2),
      (trx) => held(trx, 3),
    );
    assert.deepEqual(await stored(), [1, 2, 3]);
  });
});
