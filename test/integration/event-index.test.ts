/**
 * Every read of the event record keeps a good plan with the indexes migration 0010 left (fewer
 * indexes per recorded event, issue 11), at 100k events: the activity reads by card, board and team
 * read their (subject, seq) index; the webhook fan-out and a board's stream walk the feed after their
 * position (SQLite: the rowid; PostgreSQL: events_feed); the notification stream reads the partial
 * user index; Last-Event-ID reads the id index, and so does the retention prune (an id begins with
 * its creation second).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type CompiledQuery, sql } from 'kysely';
import { pruneEvents } from '../../src/domain/events/events.ts';
import { newId } from '../../src/domain/shared/ids.ts';
import type { Executor, NewRow } from '../../src/storage/database.ts';
import * as events from '../../src/storage/repositories/events.ts';
import { eventsAfter } from '../../src/storage/repositories/webhooks.ts';
import { ENGINES, openTestStorage, type TestStorage } from '../support/harness.ts';
import { planNodes, postgresPlan, sqlitePlan, statementsOf } from '../support/plans.ts';
import { eventually } from '../support/receiver.ts';

const EVENTS = 100_000;
const DAY = 86_400_000;
const NOW = Date.parse('2031-06-01T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const ids = (n: number) => Array.from({ length: n }, () => newId(NOW));
const companies = ids(3);
const teams = ids(30);
const boards = ids(300);
const cards = ids(6000);
const users = ids(50);
const TYPES = ['card.updated', 'card.labels.toggled', 'comment.created', 'list.updated', 'checklist.item.completed'];

/** Event i, created over 120 days in insert order; one in 100 is a notification addressed to a user. */
function eventRow(i: number): NewRow<'events'> {
  const card = i % cards.length;
  const at = NOW - 120 * DAY + Math.floor((i * 120 * DAY) / EVENTS);
  const notification = i % 100 === 0;
  return {
    id: newId(at),
    type: notification ? 'notification.created' : (TYPES[i % TYPES.length] as string),
    company_id: companies[card % companies.length] as string,
    team_id: teams[card % teams.length] as string,
    board_id: boards[card % boards.length] as string,
    card_id: cards[card] as string,
    user_id: notification ? (users[(i / 100) % users.length] as string) : null,
    actor_user_id: users[0] as string,
    actor_api_key_id: null,
    request_id: null,
    created_at: iso(at),
    data: '{}',
  };
}

for (const engine of ENGINES) {
  describe(`the reads of the event record at ${EVENTS} events [${engine}]`, () => {
    let test: TestStorage;
    let db: Executor;
    before(async () => {
      test = await openTestStorage(engine);
      db = test.storage.db;
      let lastId = '';
      for (let from = 0; from < EVENTS; from += 1000) {
        const rows = Array.from({ length: 1000 }, (_, k) => eventRow(from + k));
        await db.insertInto('events').values(rows).execute();
        lastId = rows.at(-1)?.id ?? lastId;
      }
      if (engine === 'postgres') await sql`analyze events`.execute(db);
      else await sql`analyze`.execute(db);
      // On PostgreSQL the feed holds back what committed after the oldest transaction still running
      // anywhere on the server: other suites' transactions, at first. Wait until it shows them all
      // (its end reaches the last event written).
      const last = await events.eventPosition(db, lastId);
      await eventually(
        () => events.feedEnd(db),
        (end) => end === last,
        60_000,
        'the feed to show every event written',
      );
    });
    after(() => test.dispose());

    /** The plan of `query`: SQLite's EXPLAIN QUERY PLAN details, or PostgreSQL's index scans (EXPLAIN, not run). */
    async function planOf(query: CompiledQuery): Promise<string[]> {
      if (engine === 'sqlite') return sqlitePlan(db, query);
      return planNodes(await postgresPlan(db, query))
        .filter((node) => node['Index Name'])
        .map((node) => `${node['Node Type']} ${node['Index Name']}`);
    }

    /** Asserts the one statement `work` runs reads as `expected` says (per engine), and answers what it answered. */
    async function assertPlan<T>(t: { diagnostic(message: string): void }, work: (db: Executor) => Promise<T>, expected: { sqlite: RegExp; postgres: RegExp }) {
      const [statement, ...more] = await statementsOf(db, work);
      assert.ok(statement);
      assert.equal(more.length, 0);
      const plan = await planOf(statement);
      t.diagnostic(plan.join(' | '));
      assert.ok(
        plan.some((step) => expected[engine].test(step)),
        `${statement.sql}\n${plan.join('\n')}`,
      );
      assert.ok(!plan.some((step) => /^SCAN events\b/.test(step)), `no full scan: ${plan.join('\n')}`);
    }

    /** The feed position of the event 1,000 from the end: a reader that is nearly caught up. */
    async function nearTheEnd(): Promise<string> {
      const row = await db.selectFrom('events').select('id').orderBy('seq', 'desc').offset(1000).limit(1).executeTakeFirstOrThrow();
      return (await events.eventPosition(db, row.id)) as string;
    }

    for (const kind of ['card', 'board', 'team'] as const) {
      it(`the activity of a ${kind}, by type and from a cursor, reads events_${kind}_id`, async (t) => {
        const id = { card: cards[7], board: boards[7], team: teams[7] }[kind] as string;
        const index = new RegExp(`events_${kind}_id`);
        await assertPlan(
          t,
          (db) => events.findActivity(db, { kind, id }, { limit: 21, beforeSeq: EVENTS / 2, types: { exact: 'card.labels', prefix: 'card.labels.' } }),
          {
            sqlite: new RegExp(`^SEARCH events USING INDEX events_${kind}_id \\(${kind}_id=\\? AND seq<\\?\\)`),
            postgres: index,
          },
        );
      });
    }

    it('the webhook fan-out walks the feed after its cursor', async (t) => {
      const position = await nearTheEnd();
      const rows = await eventsAfter(db, position, 500, { companies: [companies[1] as string], since: iso(NOW - 30 * DAY) });
      assert.ok(rows.length > 0);
      await assertPlan(t, (db) => eventsAfter(db, position, 500, { companies: [companies[1] as string], since: iso(NOW - 30 * DAY) }), {
        sqlite: /^SEARCH events USING INTEGER PRIMARY KEY \(rowid>\?\)/,
        postgres: /events_feed/,
      });
    });

    it("a board's stream walks the feed after its position", async (t) => {
      const position = await nearTheEnd();
      await assertPlan(t, (db) => events.boardEventsAfter(db, boards[3] as string, position), {
        sqlite: /^SEARCH events USING INTEGER PRIMARY KEY \(rowid>\?\)/,
        postgres: /events_feed/,
      });
    });

    it("a user's notification stream reads the partial user index, even from far back", async (t) => {
      const first = await db.selectFrom('events').select('id').orderBy('seq').limit(1).executeTakeFirstOrThrow();
      const position = (await events.eventPosition(db, first.id)) as string;
      const rows = await events.notificationEventsAfter(db, users[5] as string, position);
      assert.equal(rows.length, EVENTS / 100 / users.length);
      await assertPlan(t, (db) => events.notificationEventsAfter(db, users[5] as string, position), {
        sqlite: /^SEARCH events USING INDEX events_user_id \(user_id=\? AND seq>\?\)/,
        postgres: /events_user_id/,
      });
    });

    it('Last-Event-ID finds its event by the id index', async (t) => {
      const row = await db.selectFrom('events').select('id').where('seq', '=', 4321).executeTakeFirstOrThrow();
      await assertPlan(t, (db) => events.eventPosition(db, row.id), {
        sqlite: /^SEARCH events USING (COVERING )?INDEX sqlite_autoindex_events_1 \(id=\?\)/,
        postgres: /events_id_key/,
      });
    });

    it('the retention prune finds what it deletes by the id index, and deletes exactly what is older', async (t) => {
      const before = iso(NOW - 90 * DAY);
      const count = async (older?: string) => {
        let query = db.selectFrom('events').select((eb) => eb.fn.countAll().as('n'));
        if (older) query = query.where('created_at', '<', older);
        return Number((await query.executeTakeFirstOrThrow()).n);
      };
      const older = await count(before);
      assert.ok(older > 20_000, 'several batches');
      // the statements it runs: a delete per batch
      const statements = (await statementsOf(db, (db) => pruneEvents(db, before))).filter((statement) => /^delete/i.test(statement.sql));
      assert.ok(statements.length > 1, 'in batches');
      assert.equal(new Set(statements.map((statement) => statement.sql)).size, 1, 'one statement, run per batch');
      const plan = await planOf(statements[0] as CompiledQuery);
      t.diagnostic(plan.join(' | '));
      const expected = { sqlite: /USING (COVERING )?INDEX sqlite_autoindex_events_1 \(id<\?\)/, postgres: /events_id_key/ }[engine];
      assert.ok(
        plan.some((step) => expected.test(step)),
        plan.join('\n'),
      );
      assert.ok(!plan.some((step) => /^SCAN events\b/.test(step)), plan.join('\n'));
      assert.equal(await count(before), 0, 'nothing older is left');
      assert.equal(await count(), EVENTS - older, 'nothing newer went');
    });
  });
}
