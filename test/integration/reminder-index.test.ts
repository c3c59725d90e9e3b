/**
 * Finding due reminders is a range scan of a partial index (migration 0008): at 100k cards, most with
 * no reminder due (no dates, past dates, far dates, sent, completed, archived), each engine's plan
 * reads the reminder's own index, and on PostgreSQL the rows it reads are the cards that owe it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { bootstrap } from '../../src/domain/account/bootstrap.ts';
import { newId } from '../../src/domain/shared/ids.ts';
import type { NewRow } from '../../src/storage/database.ts';
import { owingQuery, type ReminderKey } from '../../src/storage/repositories/reminders.ts';
import { seedBoard } from '../support/fixtures.ts';
import { ENGINES, openTestStorage, serviceContext, type TestStorage } from '../support/harness.ts';
import { planNodes, postgresPlan, sqlitePlan } from '../support/plans.ts';

const CARDS = 100_000;
const OWING = 20;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.parse('2031-06-01T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const KEYS: ReminderKey[] = ['startOneHour', 'startOneDay', 'dueOneHour', 'dueOneDay'];
const INDEX: Record<ReminderKey, string> = {
  startOneHour: 'cards_reminder_start_one_hour',
  startOneDay: 'cards_reminder_start_one_day',
  dueOneHour: 'cards_reminder_due_one_hour',
  dueOneDay: 'cards_reminder_due_one_day',
};
const WINDOW: Record<ReminderKey, { after: string; until: string }> = {
  startOneHour: { after: iso(NOW), until: iso(NOW + HOUR) },
  startOneDay: { after: iso(NOW + HOUR), until: iso(NOW + DAY) },
  dueOneHour: { after: iso(NOW), until: iso(NOW + HOUR) },
  dueOneDay: { after: iso(NOW + HOUR), until: iso(NOW + DAY) },
};

for (const engine of ENGINES) {
  describe(`the due-reminder query at ${CARDS} cards [${engine}]`, () => {
    let test: TestStorage;
    before(async () => {
      test = await openTestStorage(engine);
      const ctx = serviceContext(test.storage);
      const tenant = await bootstrap(ctx, { company: 'Acme', team: 'Core', email: 'o@acme.test', fullName: 'O' });
      const { boardId, listIds } = await seedBoard(ctx, tenant, { lists: 1 });
      const base = {
        company_id: tenant.companyId,
        team_id: tenant.teamId,
        board_id: boardId,
        list_id: listIds[0] as string,
        creator_id: tenant.userId,
        created_at: iso(NOW),
        updated_at: iso(NOW),
      };
      /** Card i: the first OWING owe every reminder; the rest owe none, in every way a card can. */
      const row = (i: number): NewRow<'cards'> => {
        // every row names every column (SQLite has no DEFAULT in a multi-row VALUES)
        const card: NewRow<'cards'> = {
          ...base,
          id: newId(),
          name: `c${i}`,
          position: i,
          start_date: null,
          due_date: null,
          complete_status: 0,
          archived: 0,
          notified_start_one_hour: 0,
          notified_start_one_day: 0,
          notified_due_one_hour: 0,
          notified_due_one_day: 0,
        };
        const kind = i < OWING ? 'owing' : ['none', 'none', 'none', 'past', 'far', 'sent', 'done', 'archived'][i % 8];
        const near = (offset: number) => ({ start_date: iso(NOW + offset), due_date: iso(NOW + offset) });
        if (kind === 'owing') Object.assign(card, i % 2 ? near(30 * 60_000) : near(5 * HOUR));
        if (kind === 'past') Object.assign(card, near(-(i % 1000) * HOUR - 1));
        if (kind === 'far') Object.assign(card, near(2 * DAY + i * 60_000));
        if (kind === 'sent') Object.assign(card, near(30 * 60_000), { notified_start_one_hour: 1, notified_due_one_hour: 1 });
        if (kind === 'done') Object.assign(card, near(30 * 60_000), { complete_status: 1 });
        if (kind === 'archived') Object.assign(card, near(5 * HOUR), { archived: 1 });
        return card;
      };
      for (let from = 0; from < CARDS; from += 1000) {
        await test.storage.db
          .insertInto('cards')
          .values(Array.from({ length: 1000 }, (_, k) => row(from + k)))
          .execute();
      }
      if (engine === 'postgres') await sql`analyze cards`.execute(test.storage.db);
    });
    after(() => test.dispose());

    for (const key of KEYS) {
      it(`${key}: a range scan of ${INDEX[key]}`, async (t) => {
        const query = owingQuery(test.storage.db, key, WINDOW[key], 100).compile();
        if (engine === 'sqlite') {
          const details = await sqlitePlan(test.storage.db, query);
          t.diagnostic(details.join(' | '));
          assert.ok(
            details.some((d) => d.startsWith('SEARCH cards USING INDEX') && d.includes(INDEX[key])),
            details.join('\n'),
          );
        } else {
          const root = await postgresPlan(test.storage.db, query, ['analyze', 'buffers']);
          const scan = planNodes(root).find((n) => n['Index Name'] !== undefined);
          assert.ok(scan, JSON.stringify(root));
          t.diagnostic(
            `${scan['Node Type']} on ${scan['Index Name']}: ${scan['Actual Rows']} rows, ${scan['Rows Removed by Filter'] ?? 0} removed by filter, ${scan['Shared Hit Blocks'] ?? 0} buffers`,
          );
          assert.equal(scan['Index Name'], INDEX[key]);
          assert.equal(scan['Actual Rows'], OWING / 2, 'reads only the cards that owe it');
          assert.equal(scan['Rows Removed by Filter'] ?? 0, 0);
        }
        const owing = await test.storage.db.executeQuery(query);
        assert.equal(owing.rows.length, OWING / 2);
      });
    }
  });
}
