/**
 * What Toggle Multiple Labels leaves behind, on both engines: the card's labels, its `__v` and one
 * event per toggle, whatever the path its statements take (a group commit on SQLite, pipelined
 * statements on PostgreSQL). Concurrent toggles of one card lose nothing: replaying their events in
 * the order they were recorded gives the labels the card has. How many statements or round trips a toggle costs is
 * the bench's business (docs/benchmarks.md), not a test's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bootstrap } from '../../src/domain/account/bootstrap.ts';
import { authenticate } from '../../src/domain/account/service.ts';
import { toggleLabels } from '../../src/domain/cards/labels.ts';
import { createCard } from '../../src/domain/cards/service.ts';
import type { ServiceContext } from '../../src/domain/context.ts';
import type { Caller } from '../../src/domain/shared/caller.ts';
import { ValidationError } from '../../src/domain/shared/errors.ts';
import { PreconditionFailedError } from '../../src/domain/shared/preconditions.ts';
import { seedBoard } from '../support/fixtures.ts';
import { ENGINES, openTestStorage, serviceContext, type TestStorage } from '../support/harness.ts';

describe('toggling labels', () => {
  for (const engine of ENGINES) {
    describe(`[${engine}]`, () => {
      let test: TestStorage;
      let ctx: ServiceContext;
      let caller: Caller;
      let labels: string[];
      let listId: string;

      before(async () => {
        test = await openTestStorage(engine);
        ctx = serviceContext(test.storage);
        const tenant = await bootstrap(ctx, { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' });
        caller = await authenticate(ctx, tenant.apiKey);
        const board = await seedBoard(ctx, tenant, { lists: 1, labels: 3 });
        labels = board.labelIds;
        listId = board.listIds[0] as string;
      });
      after(() => test.dispose());

      const newCard = async () => (await createCard(ctx, caller, {}, { list: listId, name: 'Card' }))._id;
      /** The card's labels as stored, sorted. */
      const storedLabels = async (cardId: string) =>
        (await ctx.db.selectFrom('card_labels').select('label_id').where('card_id', '=', cardId).execute()).map((row) => row.label_id).sort();
      const storedVersion = async (cardId: string) =>
        Number((await ctx.db.selectFrom('cards').select('version').where('id', '=', cardId).executeTakeFirstOrThrow()).version);
      /**
       * The card's toggle events in the order they were recorded, which for one card is the order
       * its changes were applied (each holds the card's lock until it commits).
       */
      const toggleEvents = async (cardId: string) =>
        (await ctx.db.selectFrom('events').select('data').where('type', '=', 'card.labels.toggled').where('card_id', '=', cardId).orderBy('seq').execute()).map(
          (event) => JSON.parse(event.data) as { added: string[]; removed: string[] },
        );

      it('adds and removes in one toggle: the answer, the stored labels, __v and the event agree', async () => {
        const cardId = await newCard();
        const [a, b] = labels as [string, string];
        await toggleLabels(ctx, caller, cardId, {}, [a]);
        const card = await toggleLabels(ctx, caller, cardId, {}, [a, b]);
        assert.deepEqual(
          card.labels.map((label) => label._id),
          [b],
        );
        assert.deepEqual(await storedLabels(cardId), [b]);
        assert.equal(card.__v, 2);
        assert.equal(await storedVersion(cardId), 2);
        assert.deepEqual(await toggleEvents(cardId), [
          { added: [a], removed: [] },
          { added: [b], removed: [a] },
        ]);
      });

      it('concurrent toggles of one card lose nothing: their events replay to the stored labels', async () => {
        const cardId = await newCard();
        const [a, b, c] = labels as [string, string, string];
        const asked = Array.from({ length: 16 }, (_, i) => [[a], [b], [a, c], [b, c]][i % 4] as string[]);
        const answers = await Promise.all(asked.map((ids) => toggleLabels(ctx, caller, cardId, {}, ids)));
        // every toggle was applied once, each on the card as the one before it left it
        assert.deepEqual(
          answers.map((card) => card.__v).sort((x, y) => x - y),
          Array.from({ length: 16 }, (_, i) => i + 1),
        );
        assert.equal(await storedVersion(cardId), 16);
        const events = await toggleEvents(cardId);
        assert.equal(events.length, 16);
        const replayed = new Set<string>();
        for (const [i, event] of events.entries()) {
          for (const id of event.added) {
            assert.ok(!replayed.has(id), `event ${i} adds ${id}, which the card had`);
            replayed.add(id);
          }
          for (const id of event.removed) assert.ok(replayed.delete(id), `event ${i} removes ${id}, which the card lacked`);
        }
        assert.deepEqual([...replayed].sort(), await storedLabels(cardId));
        // each label toggled an even number of times is off again: a 8, b 8, c 8
        assert.deepEqual(await storedLabels(cardId), []);
      });

      it('a toggle refused among concurrent ones undoes only its own writes', async () => {
        const [first, second] = [await newCard(), await newCard()];
        const [a] = labels as [string];
        const [one, refused, two] = await Promise.allSettled([
          toggleLabels(ctx, caller, first, {}, [a]),
          toggleLabels(ctx, caller, second, {}, [a, '000000000000000000000bad']),
          toggleLabels(ctx, caller, second, {}, [a]),
        ]);
        assert.equal(one.status, 'fulfilled');
        assert.ok(refused.status === 'rejected' && refused.reason instanceof ValidationError, String(refused.status === 'rejected' && refused.reason));
        assert.ok(two.status === 'fulfilled');
        assert.equal(two.value.__v, 1);
        assert.deepEqual(await storedLabels(first), [a]);
        assert.deepEqual(await storedLabels(second), [a]);
        assert.equal(await storedVersion(second), 1);
        assert.deepEqual(await toggleEvents(first), [{ added: [a], removed: [] }]);
        assert.deepEqual(await toggleEvents(second), [{ added: [a], removed: [] }]);
      });

      it('two concurrent toggles of one card, both If-Match its __v: one is a 412 and changes nothing', async () => {
        const cardId = await newCard();
        const [a, b] = labels as [string, string];
        const expecting: Caller = { ...caller, expectedVersion: { kind: 'card', id: cardId, versions: [0] } };
        const outcomes = await Promise.allSettled([toggleLabels(ctx, expecting, cardId, {}, [a]), toggleLabels(ctx, expecting, cardId, {}, [b])]);
        const applied = outcomes.filter((outcome) => outcome.status === 'fulfilled');
        const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
        assert.equal(applied.length, 1);
        assert.ok(refused[0]?.reason instanceof PreconditionFailedError, String(refused[0]?.reason));
        assert.equal(await storedVersion(cardId), 1);
        assert.equal((await storedLabels(cardId)).length, 1);
        assert.equal((await toggleEvents(cardId)).length, 1);
      });
    });
  }
});
