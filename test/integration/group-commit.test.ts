/**
 * The SQLite group commit (`Dialect.groupCommit`): the works of one turn of the event loop share a
 * transaction, each in a savepoint; a work's `finish` runs after every work of the group, outside
 * the savepoints, only for works that succeeded; a `finish` that throws fails the whole group. And
 * the savepoints' undo copies stay in memory (a group of many works spilled them to a temporary
 * file, opened, written and closed at every commit).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { GroupCommit, SyncTransaction } from '../../src/storage/database.ts';
import { runCompiledNow } from '../../src/storage/dialect.ts';
import { openTestStorage, type TestStorage } from '../support/harness.ts';

describe('group commit [sqlite]', () => {
  let test: TestStorage;
  let groupCommit: GroupCommit;

  before(async () => {
    test = await openTestStorage('sqlite');
    const found = test.storage.dialect.groupCommit;
    assert.ok(found, 'SQLite has a group commit');
    groupCommit = found;
    await sql`create table group_probe (what text not null)`.execute(test.storage.db);
  });
  after(() => test?.dispose());

  const write = (trx: SyncTransaction, what: string) =>
    runCompiledNow(trx, 'test: group probe', (db) => sql`insert into group_probe (what) values (${'\u0000what'})`.compile(db), { '\u0000what': what });
  const written = async () => (await sql<{ what: string }>`select what from group_probe order by rowid`.execute(test.storage.db)).rows.map((row) => row.what);
  const clear = () => sql`delete from group_probe`.execute(test.storage.db);

  it('runs each finish after every work of the group, in order, only for the works that succeeded', async () => {
    await clear();
    const seen: string[] = [];
    const works = ['a', 'b', 'c'].map((name) =>
      groupCommit(
        (trx) => {
          seen.push(`work ${name}`);
          write(trx, `work ${name}`);
          if (name === 'b') throw new Error('b refused');
          return name;
        },
        (trx) => {
          seen.push(`finish ${name}`);
          write(trx, `finish ${name}`);
        },
      ),
    );
    const outcomes = await Promise.allSettled(works);
    assert.deepEqual(
      outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : (outcome.reason as Error).message)),
      ['a', 'b refused', 'c'],
    );
    assert.deepEqual(seen, ['work a', 'work b', 'work c', 'finish a', 'finish c']);
    // b's savepoint undid its own write only
    assert.deepEqual(await written(), ['work a', 'work c', 'finish a', 'finish c']);
  });

  it('fails the whole group, and commits none of it, when a finish throws', async () => {
    await clear();
    const first = groupCommit(
      (trx) => write(trx, 'first'),
      () => {
        throw new Error('the record could not be written');
      },
    );
    const second = groupCommit((trx) => write(trx, 'second'));
    const outcomes = await Promise.allSettled([first, second]);
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status),
      ['rejected', 'rejected'],
    );
    assert.deepEqual(await written(), []);
  });

  it('keeps the savepoints’ undo copies in memory (temp_store = MEMORY), not in a temporary file', async () => {
    const [setting] = (await sql<{ temp_store: number }>`pragma temp_store`.execute(test.storage.db)).rows;
    assert.equal(setting?.temp_store, 2);
  });
});
