/**
 * A card's record (`cardQuery`: a toggle's answer, a card read without a stored view, a page's
 * cards) lists what the card keeps, each list in its order, walked through an index in that order
 * (migration 0012): SQLite sorts only the attachment seen marks, whose order spans a join.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadCardRows } from '../../src/storage/repositories/card-records.ts';
import { openTestStorage, type TestStorage } from '../support/harness.ts';
import { sqlitePlan, statementsOf } from '../support/plans.ts';

describe('the card record query [sqlite]', () => {
  let test: TestStorage;
  before(async () => {
    test = await openTestStorage('sqlite');
  });
  after(() => test?.dispose());

  it('walks each list of the card in its order, sorting only the attachment seen marks', async () => {
    const [read, ...more] = await statementsOf(test.storage.db, (db) => loadCardRows(db, ['0123456789abcdef01234567']));
    assert.ok(read && more.length === 0);
    const plan = await sqlitePlan(test.storage.db, read);
    const text = plan.join('\n');
    for (const index of ['card_members_card', 'attachments_card', 'cheers_card', 'card_seen_card', 'checklists_card_position']) {
      assert.ok(plan.some((step) => step.includes(`INDEX ${index} `)), `${index} not walked:\n${text}`);
    }
    const sorts = plan.filter((step) => step.includes('TEMP B-TREE'));
    // the card's labels (no index in their order: it would cost every toggle's writes) and the
    // attachment seen marks (ordered across a join)
    assert.equal(sorts.length, 2, text);
  });
});
