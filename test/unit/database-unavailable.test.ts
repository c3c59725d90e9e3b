/**
 * Which errors count as "the database is unavailable" (503 and Retry-After, or "could not reach the
 * database" at start): real errors from real drivers where one can be had quickly, pg's own
 * messages otherwise; a bug or a bad query stays a 500.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { DatabaseUnreachableError, isDatabaseUnavailable } from '../../src/storage/unavailable.ts';

function caught(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  assert.fail('expected an error');
}

describe('database unavailable', () => {
  it('SQLite locked by another process beyond its busy timeout', () => {
    const dir = mkdtempSync(join(tmpdir(), 'taskboard-busy-'));
    try {
      const holder = new SqliteDatabase(join(dir, 'db'));
      holder.exec('create table t (x); begin immediate; insert into t values (1)');
      const other = new SqliteDatabase(join(dir, 'db'), { timeout: 10 });
      const error = caught(() => other.prepare('insert into t values (2)').run());
      assert.match((error as { code: string }).code, /^SQLITE_BUSY/);
      assert.equal(isDatabaseUnavailable(error), true);
      // A constraint violation on the same database is a bug or bad input, not an outage.
      assert.equal(isDatabaseUnavailable(caught(() => other.prepare('insert into nowhere values (1)').run())), false);
      holder.exec('rollback');
      holder.close();
      other.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('PostgreSQL refusing connections, as node reports it (possibly for several addresses)', async () => {
    const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:1/none', connectionTimeoutMillis: 1000 });
    const error = await client.connect().then(
      () => assert.fail('connected'),
      (e: unknown) => e,
    );
    assert.equal(isDatabaseUnavailable(error), true);
    assert.equal(isDatabaseUnavailable(new AggregateError([error])), true);
    assert.match(
      new DatabaseUnreachableError('postgres://postgres:***@127.0.0.1:1/none', error).message,
      /^could not reach the database at 127\.0\.0\.1:1 \(postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/none\): .*ECONNREFUSED/,
    );
  });

  it('server shutdown, connection exceptions, our timeouts and pg messages; not other SQL errors', () => {
    for (const code of ['57P01', '57P03', '08006', '08001', '57014', '25P03', 'ECONNRESET', 'ETIMEDOUT']) {
      assert.equal(isDatabaseUnavailable(Object.assign(new Error('x'), { code })), true, code);
    }
    for (const message of [
      'Connection terminated unexpectedly',
      'Connection terminated due to connection timeout',
      'timeout expired',
      'timeout exceeded when trying to connect',
      'Query read timeout',
    ]) {
      assert.equal(isDatabaseUnavailable(new Error(message)), true, message);
    }
    assert.equal(isDatabaseUnavailable(new Error('migration failed: x', { cause: Object.assign(new Error('y'), { code: '57P01' }) })), true);
    for (const code of ['23505', '42P01', '40P01', '22P02', 'SQLITE_CONSTRAINT_UNIQUE']) {
      assert.equal(isDatabaseUnavailable(Object.assign(new Error('x'), { code })), false, code);
    }
    assert.equal(isDatabaseUnavailable(new Error('driver has already been destroyed')), false);
  });
});
