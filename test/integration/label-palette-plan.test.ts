/**
 * The palette (Get Label Colors, on every call) is read in its order through its index (migration
 * 0011): SQLite walks `label_colors_position` and sorts nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listLabelColors } from '../../src/storage/repositories/labels.ts';
import { openTestStorage, type TestStorage } from '../support/harness.ts';
import { sqlitePlan, statementsOf } from '../support/plans.ts';

describe('the palette read [sqlite]', () => {
  let test: TestStorage;
  before(async () => {
    test = await openTestStorage('sqlite');
  });
  after(() => test?.dispose());

  it('walks the palette index in order, with no sort of its own', async () => {
    const [read, ...more] = await statementsOf(test.storage.db, (db) => listLabelColors(db));
    assert.ok(read && more.length === 0);
    const plan = await sqlitePlan(test.storage.db, read);
    assert.ok(plan.some((step) => step.includes('USING INDEX label_colors_position')), plan.join('\n'));
    assert.ok(!plan.some((step) => step.includes('TEMP B-TREE')), plan.join('\n'));
  });

  it('answers the palette in its order', async () => {
    const colors = await listLabelColors(test.storage.db);
    assert.ok(colors.length > 1);
    const ordered = [...colors].sort((a, b) => a.position - b.position || (a.id < b.id ? -1 : 1));
    assert.deepEqual(colors.map((c) => c.id), ordered.map((c) => c.id));
  });
});
