/**
 * Reads answered in an order walk an index in that order, so SQLite sorts nothing of its own:
 * - the palette (Get Label Colors, on every call), through `label_colors_position` (migration 0011);
 * - a card's record (`cardQuery`: a toggle's answer, a card read without a stored view, a page's
 *   cards), each list of the card through an index in its order (migration 0012): SQLite sorts only
 *   the card's labels and the attachment seen marks, whose order spans a join.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadCardRows } from '../../src/storage/repositories/card-records.ts';
import { listLabelColors } from '../../src/storage/repositories/labels.ts';
import { openTestStorage, type TestStorage } from '../support/harness.ts';
import { sqlitePlan, statementsOf } from '../support/plans.ts';

describe('ordered reads [sqlite]', () => {
  let test: TestStorage;
  before(async () => {
    test = await openTestStorage('sqlite');
  });
  after(() => test?.dispose());

  it('walks the palette index in order, with no sort of its own', async () => {
    const [read, ...more] = await statementsOf(test.storage.db, (db) => listLabelColors(db));
    assert.ok(read && more.length === 0);
    const plan = await sqlitePlan(test.storage.db, read);
    assert.ok(
      plan.some((step) => step.includes('USING INDEX label_colors_position')),
      plan.join('\n'),
    );
    assert.ok(!plan.some((step) => step.includes('TEMP B-TREE')), plan.join('\n'));
  });

  it('answers the palette in its order', async () => {
    const colors = await listLabelColors(test.storage.db);
    assert.ok(colors.length > 1);
    const ordered = [...colors].sort((a, b) => a.position - b.position || (a.id < b.id ? -1 : 1));
    assert.deepEqual(
      colors.map((c) => c.id),
      ordered.map((c) => c.id),
    );
  });

  it('walks each list of a card in its order, sorting only the labels and the attachment seen marks', async () => {
    const [read, ...more] = await statementsOf(test.storage.db, (db) => loadCardRows(db, ['0123456789abcdef01234567']));
    assert.ok(read && more.length === 0);
    const plan = await sqlitePlan(test.storage.db, read);
    const text = plan.join('\n');
    for (const index of ['card_members_card', 'attachments_card', 'cheers_card', 'card_seen_card', 'checklists_card_position']) {
      assert.ok(
        plan.some((step) => step.includes(`INDEX ${index} `)),
        `${index} not walked:\n${text}`,
      );
    }
    const sorts = plan.filter((step) => step.includes('TEMP B-TREE'));
    // the card's labels (no index in their order: it would cost every toggle's writes) and the
    // attachment seen marks (ordered across a join)
    assert.equal(sorts.length, 2, text);
  });
});
