/**
 * Opening storage changes nothing outside the connection it opens: PostgreSQL's int8 values (ids of
 * the event record, count(*)) come back as numbers through the pool's own type parsers, while pg's
 * global parsers, which any other code in the process shares, are left as pg ships them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { openStorage } from '../../src/storage/open.ts';
import { emptyDatabase, needsPostgres } from '../support/harness.ts';

describe('opening PostgreSQL', needsPostgres, () => {
  it('reads int8 as numbers on its own connections, and leaves pg’s global parsers alone', async () => {
    const database = await emptyDatabase('postgres');
    const storage = openStorage(database.url);
    try {
      const { rows } = await sql<{ n: unknown; big: unknown }>`select count(*) as n, 9007199254740991::int8 as big`.execute(storage.db);
      assert.deepEqual(rows, [{ n: 1, big: 9007199254740991 }]);
      assert.equal(pg.types.getTypeParser(20)('42'), '42', 'the global int8 parser still answers text');
      const plain = new pg.Client({ connectionString: database.url.replace(/[?&]schema=[^&]*/, '') });
      await plain.connect();
      try {
        assert.deepEqual((await plain.query('select count(*) as n')).rows, [{ n: '1' }], 'a client of its own reads int8 as pg does');
      } finally {
        await plain.end();
      }
    } finally {
      await storage.close();
      await database.dispose();
    }
  });
});
