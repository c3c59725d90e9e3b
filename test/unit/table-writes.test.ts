import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, sql } from 'kysely';
import type { Database } from '../../src/storage/database.ts';
import { tableWrites } from '../../src/storage/table-writes.ts';

// Builds queries only: nothing runs.
const db = new Kysely<Database>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new SqliteIntrospector(k),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});

const writesOf = (query: { compile(): { query: Parameters<typeof tableWrites>[0] } }) => tableWrites(query.compile().query);

describe('tableWrites', () => {
  it('reads no write in a select, nor in raw SQL', () => {
    assert.deepEqual(writesOf(db.selectFrom('api_keys as k').innerJoin('team_members as tm', 'tm.user_id', 'k.user_id').select('k.id')), []);
    assert.deepEqual(tableWrites(sql`delete from api_keys`.compile(db).query), []);
  });

  it('names the table of an insert, a delete and an update, with the columns an update sets', () => {
    assert.deepEqual(writesOf(db.insertInto('team_members').values({ team_id: 'a', user_id: 'b', created_at: 'c' })), [
      { table: 'team_members', columns: null },
    ]);
    assert.deepEqual(writesOf(db.deleteFrom('company_members').where('user_id', '=', 'b')), [{ table: 'company_members', columns: null }]);
    assert.deepEqual(writesOf(db.updateTable('api_keys').set({ last_used_at: 'x', revoked_at: 'y' }).where('id', '=', 'k')), [
      { table: 'api_keys', columns: ['last_used_at', 'revoked_at'] },
    ]);
  });

  it('sees through an alias, and finds the writes in the WITH parts of a select', () => {
    assert.deepEqual(writesOf(db.updateTable('api_keys as k').set({ revoked_at: 'y' }).where('k.id', '=', 'k')), [
      { table: 'api_keys', columns: ['revoked_at'] },
    ]);
    const withWrite = db
      .with('gone', (w) => w.deleteFrom('team_members').where('user_id', '=', 'b').returning('team_id'))
      .selectFrom('gone')
      .select('team_id');
    assert.deepEqual(writesOf(withWrite), [{ table: 'team_members', columns: null }]);
  });

  it('answers the same for the same tree (statements compiled once are read once)', () => {
    const tree = db.deleteFrom('team_members').where('user_id', '=', 'b').compile().query;
    assert.equal(tableWrites(tree), tableWrites(tree));
  });
});
