/**
 * SQLite's checkpoints in a thread of their own (src/storage/sqlite-checkpoints.ts): the thread
 * copies the write-ahead log back into the database file, so the writer starts the log over and it
 * stays bounded without the main thread ever checkpointing (its own `wal_autocheckpoint`, 10,000
 * pages, is not reached here). The server opens its database so; other openers (commands) do not.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.ts';
import { openStorage, type StorageConnection } from '../../src/storage/open.ts';
import { backgroundCheckpoints, type CheckpointResult } from '../../src/storage/sqlite-checkpoints.ts';
import { type EmptyDatabase, emptyDatabase, testConfig } from '../support/harness.ts';

/** Writes about `megabytes` MB of new pages (rows of 3,000 characters, in one statement). */
async function write(storage: StorageConnection, megabytes: number) {
  const rows = Math.round((megabytes * 1_000_000) / 3000);
  await sql`insert into filler (x) with recursive n(i) as (select 1 union all select i + 1 from n where i < ${rows}) select ${'x'.repeat(3000)} || i from n`.execute(
    storage.db,
  );
}

const walBytes = (file: string) => statSync(`${file}-wal`).size;

describe('background checkpoints [sqlite]', () => {
  const opened: { storage: StorageConnection; database: EmptyDatabase }[] = [];
  after(async () => {
    for (const { storage, database } of opened) {
      await storage.close();
      await database.dispose();
    }
  });

  async function open(options: Parameters<typeof openStorage>[1]) {
    const database = await emptyDatabase('sqlite');
    const storage = openStorage(database.url, options);
    opened.push({ storage, database });
    await sql`create table filler (x text not null)`.execute(storage.db);
    return { storage, file: database.url.slice('sqlite:'.length) };
  }

  it('copies the log back in its thread: the writer starts the log over, which stays as large as one round of writes', async () => {
    const { storage, file } = await open({ backgroundCheckpoints: { startAtWalBytes: Number.MAX_SAFE_INTEGER } });
    const checkpoints = storage.checkpoints;
    assert.ok(checkpoints, 'a SQLite file opened with background checkpoints has them');
    assert.equal(checkpoints.running, false, 'the thread starts only when needed');

    await write(storage, 4);
    const first = await checkpoints.checkpointNow();
    assert.equal(checkpoints.running, true);
    assert.ok(first.log > 900, `the first round filled the log (${first.log} pages)`);
    assert.equal(first.checkpointed, first.log, 'the thread copied the whole log back');
    const bound = walBytes(file);

    for (let round = 0; round < 4; round++) {
      await write(storage, 4);
      const result: CheckpointResult = await checkpoints.checkpointNow();
      assert.equal(result.checkpointed, result.log);
      // started over: this round's pages only, not every round's since the first
      assert.ok(result.log < first.log * 1.5, `round ${round + 2}: ${result.log} pages in the log, against ${first.log} after the first`);
    }
    assert.ok(walBytes(file) <= bound * 1.5, `the log file stays at one round's size: ${walBytes(file)} against ${bound} bytes`);
  });

  it('without its checkpoints the log grows round after round (what the case above rules out)', async () => {
    const { storage, file } = await open({});
    assert.equal(storage.checkpoints, undefined, 'opened without background checkpoints (as commands are)');
    await write(storage, 4);
    const one = walBytes(file);
    for (let round = 0; round < 3; round++) await write(storage, 4);
    assert.ok(walBytes(file) > one * 3, `four rounds, no checkpoint yet: ${walBytes(file)} against ${one} bytes after one`);
  });

  it('starts its thread by itself once the log passes its size', async () => {
    let started!: () => void;
    const startedNow = new Promise<void>((resolve) => (started = resolve));
    const { storage } = await open({ backgroundCheckpoints: { startAtWalBytes: 2_000_000, watchMs: 5, onStarted: () => started() } });
    await write(storage, 4);
    await startedNow;
    assert.equal(storage.checkpoints?.running, true);
  });

  it('stops with the storage: the thread ends, and no checkpoint is asked of it afterwards', async () => {
    const database = await emptyDatabase('sqlite');
    const storage = openStorage(database.url, { backgroundCheckpoints: {} });
    try {
      await sql`create table filler (x text not null)`.execute(storage.db);
      await write(storage, 1);
      const checkpoints = storage.checkpoints;
      assert.ok(checkpoints);
      await checkpoints.checkpointNow();
      assert.equal(checkpoints.running, true);
      await storage.close();
      assert.equal(checkpoints.running, false, 'the thread has ended');
      await assert.rejects(checkpoints.checkpointNow(), /stopped/);
    } finally {
      await database.dispose();
    }
  });

  it("tells of a thread that fails (the main connection's own checkpoints go on), and refuses what was asked of it", async () => {
    // a database the thread cannot open: it fails as it starts
    const dir = mkdtempSync(join(tmpdir(), 'taskboard-checkpoints-'));
    let failedWith!: (error: Error) => void;
    const failed = new Promise<Error>((resolve) => (failedWith = resolve));
    const checkpoints = backgroundCheckpoints(join(dir, 'missing.db'), { onFailed: (error) => failedWith(error) });
    try {
      await assert.rejects(checkpoints.checkpointNow());
      assert.match((await failed).message, /unable to open database file/);
      assert.equal(checkpoints.running, false, 'the failed thread is gone');
    } finally {
      await checkpoints.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the server opens its SQLite database with them', async () => {
    const database = await emptyDatabase('sqlite');
    const app = await buildApp({ config: testConfig({ databaseUrl: database.url }), logger: false });
    try {
      await app.ready();
      assert.ok(app.storage.checkpoints, 'the server checkpoints in a thread once its log grows');
      assert.equal(app.storage.checkpoints.running, false, 'not before');
    } finally {
      await app.close();
      await database.dispose();
    }
  });
});
