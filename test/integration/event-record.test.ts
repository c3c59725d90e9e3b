/**
 * The event record's core: events are written with the change that made them and never without it,
 * and the feed reads committed events in an order no later commit can slip behind (on PostgreSQL a
 * transaction that inserted first may commit last; the feed waits for it instead of skipping it).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordEvent } from '../../src/domain/events/record.ts';
import { inTransaction } from '../../src/domain/shared/transaction.ts';
import { dialectOf } from '../../src/storage/dialect.ts';
import type { EventQuery } from '../../src/storage/event-feed.ts';
import { seedBoard } from '../support/fixtures.ts';
import { bearer, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { eventually } from '../support/receiver.ts';

for (const engine of ENGINES) {
  describe(`event record [${engine}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(engine);
    });
    after(() => t.dispose());

    const feed = () => dialectOf(t.services.db).eventFeed;
    const subject = () => ({ company: t.tenant.companyId, team: t.tenant.teamId });
    /**
     * What the feed shows after `start` once it shows `count` events: on PostgreSQL a commit shows
     * once every transaction older than it has ended, on the whole server (other suites' too).
     */
    function feedOnceItShows(start: string, count: number, which: (event: { request_id: string | null; type: string }) => boolean) {
      return eventually(
        async () => (await feed().committedAfter(t.services.db, start, 10)).filter(which),
        (events) => events.length >= count,
        10_000,
        `${count} event(s) in the feed`,
      );
    }

    /**
     * A transaction that records a `type` event and at once writes a `<type>.row` event's row (as its
     * commit would write the recorded one: the row holds the smaller seq), then stays open until
     * `finish()`, which answers once it has committed. Its id: 24 times `idChar`.
     */
    async function slowTransaction(type: string, idChar: string): Promise<{ finish: () => Promise<void> }> {
      let begun!: () => void;
      let finish!: () => void;
      const running = new Promise<void>((resolve) => (begun = resolve));
      const finishing = new Promise<void>((resolve) => (finish = resolve));
      const done = inTransaction(t.services, async (trx) => {
        recordEvent(trx, null, type, subject());
        await trx
          .insertInto('events')
          .values({
            id: idChar.repeat(24),
            type: `${type}.row`,
            company_id: t.tenant.companyId,
            team_id: null,
            board_id: null,
            card_id: null,
            user_id: null,
            actor_user_id: null,
            actor_api_key_id: null,
            request_id: null,
            created_at: new Date().toISOString(),
            data: '{}',
          })
          .execute();
        begun();
        await finishing;
      });
      await running;
      return {
        finish: async () => {
          finish();
          await done;
        },
      };
    }

    it('records a card change with its subject, actor and request id, once committed', async () => {
      const [list] = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds as [string];
      const created = await t.app.inject({ method: 'POST', url: '/api/v1/cards', headers: bearer(t.tenant.apiKey), payload: { list, name: 'told' } });
      const card = created.json().card;
      const start = await feed().end(t.services.db);
      const res = await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/cards/${card._id}`,
        headers: { ...bearer(t.tenant.apiKey), 'x-request-id': 'req-event-1' },
        payload: { name: 'told again' },
      });
      assert.equal(res.statusCode, 200, res.body);
      // the card's creation may show after `start` too (see feedOnceItShows): this request's events only
      const events = await feedOnceItShows(start, 1, (event) => event.request_id === 'req-event-1');
      assert.equal(events.length, 1);
      const [event] = events as [(typeof events)[number]];
      assert.equal(event.card_id, card._id);
      assert.equal(event.board_id, card.board);
      assert.equal(event.team_id, card.team);
      assert.equal(event.company_id, card.company);
      assert.equal(event.actor_user_id, t.tenant.userId);
      assert.equal(event.request_id, 'req-event-1');
      assert.equal(await feed().positionOf(t.services.db, event.id), event.position);
    });

    it('writes nothing for a transaction that rolls back', async () => {
      const start = await feed().end(t.services.db);
      await assert.rejects(
        inTransaction(t.services, async (trx) => {
          recordEvent(trx, null, 'test.rolled-back', subject());
          throw new Error('refused');
        }),
        /refused/,
      );
      assert.deepEqual(await feed().committedAfter(t.services.db, start, 10), []);
    });

    it('refuses to record outside inTransaction', async () => {
      await assert.rejects(
        t.services.db.transaction().execute(async (trx) => {
          recordEvent(trx, null, 'test.lost', subject());
        }),
        /outside inTransaction/,
      );
    });

    it('tells the context once a transaction with events has committed', async () => {
      let told = 0;
      const ctx = { ...t.services, eventsCommitted: () => told++ };
      await inTransaction(ctx, async () => {});
      assert.equal(told, 0);
      await inTransaction(ctx, async (trx) => {
        recordEvent(trx, null, 'test.told', subject());
        assert.equal(told, 0);
      });
      assert.equal(told, 1);
    });

    it('writes and tells nothing where events are not recorded (the bench only)', async () => {
      let told = 0;
      const ctx = { ...t.services, recordEvents: false as const, eventsCommitted: () => told++ };
      const start = await feed().end(t.services.db);
      await inTransaction(ctx, async (trx) => {
        recordEvent(trx, null, 'test.dropped', subject());
      });
      // a recorded one after them: once the feed shows it, it would show the dropped ones before it
      await inTransaction(t.services, async (trx) => {
        recordEvent(trx, null, 'test.kept', subject());
      });
      // (events of the earlier tests may show after `start` too: this test's types only)
      const types = (await feedOnceItShows(start, 1, (event) => ['test.dropped', 'test.kept'].includes(event.type))).map((event) => event.type);
      assert.deepEqual(types, ['test.kept']);
      assert.equal(told, 0);
    });

    it('writes the events of transactions started together in their order, none of a refused one', async () => {
      const start = await feed().end(t.services.db);
      let told = 0;
      const ctx = { ...t.services, eventsCommitted: () => told++ };
      // started in one turn of the event loop: on SQLite they share a commit, each in a savepoint of its own
      const works = ['first', 'refused', 'last'].map((name) =>
        inTransaction(ctx, async (trx) => {
          recordEvent(trx, null, `test.group.${name}`, subject());
          if (name === 'refused') throw new Error('refused');
        }),
      );
      const outcomes = await Promise.allSettled(works as Promise<void>[]);
      assert.deepEqual(
        outcomes.map((outcome) => outcome.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      // (PostgreSQL's feed shows an event once every transaction that began before it has ended)
      const ours = (event: { type: string }) => event.type.startsWith('test.group.');
      const types = (await feedOnceItShows(start, 2, ours)).map((event) => event.type);
      assert.deepEqual(types, ['test.group.first', 'test.group.last']);
      assert.equal(told, 2);
    });

    it('never lets a reader pass an event that commits after a later-inserted one', async () => {
      const start = await feed().end(t.services.db);
      // the slow transaction records its event first and commits last
      const slow = await slowTransaction('test.slow', 'f');
      if (engine === 'sqlite') {
        // one writer at a time: nothing else can commit while the slow one is open
        await slow.finish();
        const types = (await feed().committedAfter(t.services.db, start, 10)).map((event) => event.type);
        assert.deepEqual(types, ['test.slow.row', 'test.slow']);
        return;
      }
      await inTransaction(t.services, async (trx) => {
        recordEvent(trx, null, 'test.fast', subject());
      });
      // the fast event committed, but reading it now would let the reader pass the slow one's
      // (events of the earlier tests may show after `start` as well: this test's only)
      const ours = (event: { type: string }) => ['test.fast', 'test.slow', 'test.slow.row'].includes(event.type);
      const meanwhile = (await feed().committedAfter(t.services.db, start, 10)).filter(ours);
      assert.deepEqual(
        meanwhile.map((event) => event.type),
        [],
      );
      await slow.finish();
      const all = await feedOnceItShows(start, 3, ours);
      assert.deepEqual(all.map((event) => event.type).sort(), ['test.fast', 'test.slow', 'test.slow.row']);
      // and a reader that went on from the end of the first read misses nothing either
      const last = all.at(-1)!;
      assert.deepEqual(await feed().committedAfter(t.services.db, last.position, 10), []);
    });

    it('sends a reader back to an event its read held back, even once a later statement shows it', { skip: engine === 'sqlite' }, async () => {
      const start = await feed().end(t.services.db);
      const ours = (query: EventQuery) => query.where('type', 'in', ['test.held', 'test.held.row', 'test.after']);
      const slow = await slowTransaction('test.held', 'd');
      await inTransaction(t.services, async (trx) => {
        recordEvent(trx, null, 'test.after', subject());
      });
      // the read holds the committed event back: an older transaction is still running
      assert.deepEqual(await feed().committedAfter(t.services.db, start, 10, ours), []);
      await slow.finish();
      await feedOnceItShows(start, 3, (event) => ['test.held', 'test.held.row', 'test.after'].includes(event.type));
      // the reader asks in a statement of its own, whose snapshot shows the events now: it must look again
      assert.equal(await feed().heldBack(t.services.db, start, ours), true);
    });

    it('shows a reader that starts now what commits after, and what was still running then, never what committed before', async () => {
      const record = (type: string) => inTransaction(t.services, async (trx) => recordEvent(trx, null, type, subject()));
      // on PostgreSQL it holds back, in the feed, what commits while it runs
      const slow = await slowTransaction('test.now.running', 'e');
      if (engine === 'sqlite') await slow.finish(); // one writer at a time
      await record('test.now.before');
      const start = await feed().now(t.services.db);
      await record('test.now.after');
      await slow.finish();
      const ours = (event: { type: string }) => event.type.startsWith('test.now.');
      const expected = engine === 'sqlite' ? ['test.now.after'] : ['test.now.after', 'test.now.running', 'test.now.running.row'];
      const shown = await feedOnceItShows(start, expected.length, ours);
      assert.deepEqual(shown.map((event) => event.type).sort(), expected);
      // what came after the start's snapshot is read from a plain position: the snapshot is no longer needed
      const after = shown.find((event) => event.type === 'test.now.after')!;
      assert.doesNotMatch(after.position, /\//);
      assert.deepEqual((await feed().committedAfter(t.services.db, after.position, 10)).filter(ours), []);
    });
  });
}
