import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { isForeignKeyViolation } from '../../src/storage/dialect.ts';
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
          id: 'ffffffffffffffffffffffff', company_id: 'ffffffffffffffffffffffff', team_id: 'ffffffffffffffffffffffff',
          board_id: 'ffffffffffffffffffffffff', list_id: 'ffffffffffffffffffffffff', name: 'orphan',
          creator_id: 'ffffffffffffffffffffffff', position: 1, start_date: null, due_date: null,
          complete_set_at: null, complete_updated_at: null, created_at: now, updated_at: now,
        })
        .execute();
      await assert.rejects(attempt, (error) => isForeignKeyViolation(error));
    });

    it('holds the fixed label palette with stable ids', async () => {
      const colors = await s.storage.db.selectFrom('label_colors').select(['id', 'name']).orderBy('position').execute();
      assert.equal(colors.length, 10);
      assert.deepEqual(colors[0], { id: '000000000000000000000001', name: 'green' });
    });
  });
}
