/**
 * What one Toggle Multiple Labels costs the database, counted (never timed): the statements it runs
 * on SQLite, where it runs synchronously in the group commit (src/storage/dialect.ts), and the round
 * trips it makes to PostgreSQL. Also the group commit's promises: toggles started in one turn of the
 * event loop share one commit, and one that fails undoes only its own writes.
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
import { openTestStorage, serviceContext, type TestStorage } from '../support/harness.ts';
import { countStatements } from '../support/statement-counter.ts';

const isCommit = (statement: string) => /^\s*commit\b/i.test(statement);

describe('the statements of one toggle', () => {
  const counter = countStatements();
  after(() => counter.stop());

  for (const engine of ['sqlite', 'postgres'] as const) {
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

      it(
        engine === 'sqlite'
          ? 'runs 10 statements, one transaction, for a label added and one removed'
          : 'sends 5 statements in 2 round trips for a label added and one removed',
        async () => {
          const cardId = await newCard();
          const [a, b] = labels as [string, string];
          await toggleLabels(ctx, caller, cardId, {}, [a]); // the statements compiled and prepared
          const { result, statements, roundTrips } = await counter.during(() => toggleLabels(ctx, caller, cardId, {}, [a, b]));
          assert.deepEqual(
            result.labels.map((label) => label._id),
            [b],
          );
          assert.equal(statements.filter(isCommit).length, 1, statements.join('\n'));
          // SQLite: BEGIN, SAVEPOINT, the card's change, the labels read, one insert, one delete, the
          // card's record, the event, RELEASE, COMMIT. PostgreSQL: BEGIN, the card's change, one
          // statement that reads the labels, writes them and reads the card's record, the event, COMMIT;
          // the BEGIN and the labels' statement written with the card's change, the event with the
          // COMMIT. (No announcement: the app's bell announces its commits, gathered, on a connection
          // of its own.)
          assert.equal(statements.length, engine === 'sqlite' ? 10 : 5, statements.join('\n'));
          if (engine === 'postgres') {
            assert.equal(roundTrips, 2, statements.join('\n'));
            assert.match(statements[0] as string, /^begin$/i);
            assert.match(statements[1] as string, /^update "cards"/i, 'the card is locked before its labels are read');
            assert.match(statements.at(-2) as string, /^insert into "events"/i);
            assert.match(statements.at(-1) as string, /^commit$/i);
          }
        },
      );

      it(engine === 'sqlite' ? 'runs 9 statements for one label toggled' : 'sends 5 statements in 2 round trips for one label toggled', async () => {
        const cardId = await newCard();
        const [a] = labels as [string];
        await toggleLabels(ctx, caller, cardId, {}, [a]);
        const { statements, roundTrips } = await counter.during(() => toggleLabels(ctx, caller, cardId, {}, [a]));
        assert.equal(statements.length, engine === 'sqlite' ? 9 : 5, statements.join('\n'));
        if (engine === 'postgres') assert.equal(roundTrips, 2, statements.join('\n'));
      });

      if (engine === 'sqlite') {
        it('toggles started in one turn share one commit; one that fails undoes only its own writes', async () => {
          const [first, second] = [await newCard(), await newCard()];
          const [a] = labels as [string];
          const { result, statements } = await counter.during(() =>
            Promise.allSettled([
              toggleLabels(ctx, caller, first, {}, [a]),
              toggleLabels(ctx, caller, second, {}, [a, '000000000000000000000bad']),
              toggleLabels(ctx, caller, second, {}, [a]),
            ]),
          );
          assert.equal(statements.filter(isCommit).length, 1, statements.join('\n'));
          const [one, refused, two] = result;
          assert.equal(one.status, 'fulfilled');
          assert.ok(refused.status === 'rejected' && refused.reason instanceof ValidationError, String(refused.status === 'rejected' && refused.reason));
          // the refused toggle's change of the card (__v) and its event were undone, the third kept
          assert.ok(two.status === 'fulfilled');
          assert.equal(two.value.__v, 1);
          assert.deepEqual(
            two.value.labels.map((label) => label._id),
            [a],
          );
          const events = await ctx.db
            .selectFrom('events')
            .select(['card_id', 'data'])
            .where('type', '=', 'card.labels.toggled')
            .where('card_id', 'in', [first, second])
            .execute();
          assert.deepEqual(
            events.map((event) => [event.card_id, JSON.parse(event.data)]).sort(),
            [
              [first, { added: [a], removed: [] }],
              [second, { added: [a], removed: [] }],
            ].sort(),
          );
        });

        it('two toggles of one card in one turn, both If-Match its __v: the second is a 412', async () => {
          const cardId = await newCard();
          const [a, b] = labels as [string, string];
          const expecting: Caller = { ...caller, expectedVersion: { kind: 'card', id: cardId, versions: [0] } };
          const [first, second] = await Promise.allSettled([toggleLabels(ctx, expecting, cardId, {}, [a]), toggleLabels(ctx, expecting, cardId, {}, [b])]);
          assert.ok(first.status === 'fulfilled' && first.value.__v === 1);
          assert.ok(second.status === 'rejected' && second.reason instanceof PreconditionFailedError, String(second.status === 'rejected' && second.reason));
        });
      }
    });
  }
});
