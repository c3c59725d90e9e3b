/**
 * PostgreSQL transactions in fewer round trips (src/storage/postgres-pool.ts): the BEGIN is written
 * with the transaction's first statement, a statement held with `Dialect.sentWithCommit` is written
 * with the COMMIT, and a transaction that ran nothing sends nothing. Each still behaves as it would
 * alone: the BEGIN really opens the transaction, a held statement's failure fails the transaction
 * with its own error and commits nothing, and the connection is clean for the next transaction.
 * A statement given ahead (`Dialect.afterNextStatement`) is written behind the transaction's next
 * statement, runs after it, and answers (or fails) on its own.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { type CompiledQuery, sql } from 'kysely';
import { UniqueViolation } from '../../src/storage/errors.ts';
import { openTestStorage, type TestStorage } from '../support/harness.ts';
import { countStatements } from '../support/statement-counter.ts';

describe('PostgreSQL transactions pipelined', () => {
  let test: TestStorage;
  const counter = countStatements();

  before(async () => {
    test = await openTestStorage('postgres');
    await sql`create table pipeline_probe (id integer primary key)`.execute(test.storage.db);
  });
  beforeEach(async () => {
    await sql`delete from pipeline_probe`.execute(test.storage.db);
  });
  after(async () => {
    counter.stop();
    await test?.dispose();
  });

  type Db = TestStorage['storage']['db'];
  const insert = (db: Db, id: number) =>
    db
      .insertInto('pipeline_probe' as never)
      .values({ id } as never)
      .compile();
  const held = (db: Db, id: number) => test.storage.dialect.sentWithCommit(insert(db, id));
  /** One transaction running `steps` in order. */
  const transaction = (...steps: ((trx: Db) => CompiledQuery)[]) =>
    test.storage.db.transaction().execute(async (trx) => {
      for (const step of steps) await trx.executeQuery(step(trx));
    });
  /** One transaction running `steps` in order, then thrown out (rolled back): answers the statements sent. */
  const rolledBack = async (...steps: ((trx: Db) => CompiledQuery)[]) => {
    const work = () =>
      test.storage.db.transaction().execute(async (trx) => {
        for (const step of steps) await trx.executeQuery(step(trx));
        throw new Error('changed my mind');
      });
    return (await counter.during(() => assert.rejects(work, /changed my mind/))).statements;
  };
  /** The first word of each statement sent. */
  const verbs = (statements: readonly string[]) => statements.map((statement) => statement.split(' ')[0]?.toLowerCase());
  const stored = async () => (await sql<{ id: number }>`select id from pipeline_probe order by id`.execute(test.storage.db)).rows.map((row) => row.id);

  it('a transaction that runs nothing sends nothing', async () => {
    const { roundTrips, statements } = await counter.during(() => test.storage.db.transaction().execute(async () => 'nothing'));
    assert.equal(roundTrips, 0, statements.join('\n'));
  });

  it('writes the BEGIN with the first statement, and that BEGIN opens the transaction', async () => {
    const { roundTrips, statements } = await counter.during(() =>
      transaction(
        (trx) => insert(trx, 1),
        (trx) => insert(trx, 2),
      ),
    );
    assert.deepEqual(verbs(statements), ['begin', 'insert', 'insert', 'commit']);
    assert.equal(roundTrips, 3, statements.join('\n'));
    assert.deepEqual(await stored(), [1, 2]);

    // the first statement ran inside the transaction: a failure after it undoes it
    await rolledBack((trx) => insert(trx, 3));
    assert.deepEqual(await stored(), [1, 2]);
  });

  it('writes a held statement with the COMMIT, and it is committed with the rest', async () => {
    const { roundTrips, statements } = await counter.during(() =>
      transaction(
        (trx) => insert(trx, 1),
        (trx) => held(trx, 2),
      ),
    );
    assert.deepEqual(verbs(statements), ['begin', 'insert', 'insert', 'commit']);
    assert.equal(roundTrips, 2, statements.join('\n'));
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

  it('a held statement of a transaction rolled back is never sent', async () => {
    const statements = await rolledBack(
      (trx) => insert(trx, 1),
      (trx) => held(trx, 2),
    );
    assert.deepEqual(verbs(statements), ['begin', 'insert', 'rollback']);
    assert.deepEqual(await stored(), []);
  });

  it('a transaction that only holds a statement sends BEGIN, it and COMMIT in one round trip', async () => {
    const { roundTrips, statements } = await counter.during(() => transaction((trx) => held(trx, 5)));
    assert.equal(statements.length, 3, statements.join('\n'));
    assert.equal(roundTrips, 1, statements.join('\n'));
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

  describe('a statement sent ahead', () => {
    const count = (db: Db) => sql<{ n: string }>`select count(*) as n from pipeline_probe`.compile(db);

    it('goes out behind the next statement, in its round trip, runs after it and answers its own rows', async () => {
      const { result, roundTrips, statements } = await counter.during(() =>
        test.storage.db.transaction().execute(async (trx) => {
          const counted = await test.storage.dialect.afterNextStatement(trx, count(trx));
          await trx.executeQuery(insert(trx, 1));
          return counted();
        }),
      );
      assert.deepEqual(verbs(statements), ['begin', 'insert', 'select', 'commit']);
      assert.equal(roundTrips, 2, statements.join('\n'));
      assert.equal(Number(result[0]?.n), 1, 'it saw the insert written before it');
    });

    it('fails on its own, classified, while the statement before it answers', async () => {
      await test.storage.db
        .insertInto('pipeline_probe' as never)
        .values({ id: 7 } as never)
        .execute();
      let before: unknown;
      await assert.rejects(
        test.storage.db.transaction().execute(async (trx) => {
          const second = await test.storage.dialect.afterNextStatement(trx, insert(trx, 7));
          before = (await trx.executeQuery(insert(trx, 1))).numAffectedRows;
          await second();
        }),
        (error: unknown) => error instanceof UniqueViolation,
      );
      assert.equal(before, 1n, 'the statement before it answered');
      assert.deepEqual(await stored(), [7], 'the transaction rolled back');
      await transaction((trx) => insert(trx, 2));
      assert.deepEqual(await stored(), [2, 7], 'the pool is clean');
    });

    it('fails when the statement before it failed, and the transaction fails with that statement’s error', async () => {
      await test.storage.db
        .insertInto('pipeline_probe' as never)
        .values({ id: 1 } as never)
        .execute();
      let second: (() => Promise<unknown>) | undefined;
      await assert.rejects(
        test.storage.db.transaction().execute(async (trx) => {
          second = await test.storage.dialect.afterNextStatement(trx, insert(trx, 2));
          await trx.executeQuery(insert(trx, 1));
        }),
        (error: unknown) => error instanceof UniqueViolation,
      );
      await assert.rejects(second!());
      assert.deepEqual(await stored(), [1]);
    });

    it('is never sent when its transaction rolls back before another statement', async () => {
      let second: (() => Promise<unknown>) | undefined;
      const { statements } = await counter.during(() =>
        assert.rejects(
          test.storage.db.transaction().execute(async (trx) => {
            second = await test.storage.dialect.afterNextStatement(trx, insert(trx, 1));
            throw new Error('changed my mind');
          }),
          /changed my mind/,
        ),
      );
      assert.deepEqual(statements, []);
      await assert.rejects(second!(), /rolled back/);
      assert.deepEqual(await stored(), []);
    });

    it('goes out with the COMMIT, before it, when no statement follows it', async () => {
      const { roundTrips, statements } = await counter.during(() =>
        test.storage.db.transaction().execute(async (trx) => {
          await test.storage.dialect.afterNextStatement(trx, insert(trx, 4));
        }),
      );
      assert.deepEqual(verbs(statements), ['begin', 'insert', 'commit']);
      assert.equal(roundTrips, 1, statements.join('\n'));
      assert.deepEqual(await stored(), [4]);
    });

    it('goes out at once outside a transaction', async () => {
      const answer = await test.storage.dialect.afterNextStatement(test.storage.db as never, insert(test.storage.db, 6));
      await answer();
      assert.deepEqual(await stored(), [6]);
    });
  });
});
