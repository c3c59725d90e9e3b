/**
 * Get Card Details on a first view follows the lock rule (src/domain/access/access.ts): the card's
 * lock first, then the `seen` row, then the card's change. On PostgreSQL, while another transaction
 * holds the card's row, the first view waits for it before touching `card_seen` at all. On both
 * engines, the first view answers the card with the caller in `seen` and `__v` + 1, and a repeat
 * view changes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Transaction } from '../../src/storage/database.ts';
import { seedBoard } from '../support/fixtures.ts';
import { bearer, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { holdLocks, waitingFor } from '../support/held-locks.ts';

for (const engine of ENGINES) {
  describe(`Get Card Details first view [${engine}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(engine);
    });
    after(() => t.dispose());

    const newCard = async (): Promise<string> => {
      const [list] = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds as [string];
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/cards', headers: bearer(t.tenant.apiKey), payload: { list, name: 'viewed' } });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().card._id;
    };
    const view = (cardId: string) => t.app.inject({ method: 'GET', url: `/api/v1/cards/${cardId}`, headers: bearer(t.tenant.apiKey) });

    it('records the first view once: the caller in seen, __v + 1; a repeat view changes nothing', async () => {
      const cardId = await newCard();
      const first = await view(cardId);
      assert.equal(first.statusCode, 200, first.body);
      assert.deepEqual(first.json().card.seen, [t.tenant.userId]);
      assert.equal(first.json().card.__v, 1);
      const again = await view(cardId);
      assert.deepEqual(again.json().card, first.json().card);
    });

    if (engine === 'postgres') {
      /**
       * A first view of the card made while another transaction holds the card's row: `whileWaiting`
       * runs once the view waits for the holder (given the view's backend), then `beforeRelease` in
       * the holder's transaction, which then commits. Answers the view's answer.
       */
      async function viewWhileHeld(
        cardId: string,
        whileWaiting: (waiterPid: number) => Promise<void>,
        beforeRelease: (trx: Transaction) => Promise<void> = async () => {},
      ) {
        const holder = await holdLocks(t.services.db, (trx) => sql`select id from cards where id = ${cardId} for update`.execute(trx), beforeRelease);
        let settled = false;
        const answer = view(cardId).finally(() => (settled = true));
        try {
          // the first view's backend, once it waits for the holder (bounded: the view may not end first)
          let waiterPid: number | undefined;
          while (!settled && waiterPid === undefined) waiterPid = (await waitingFor(t.services.db, holder.pid))[0];
          assert.ok(waiterPid !== undefined, 'the first view waited for the card');
          await whileWaiting(waiterPid);
        } finally {
          await holder.release();
        }
        return answer;
      }

      it("waits for the card's lock before it writes the seen row", async () => {
        const res = await viewWhileHeld(await newCard(), async (waiterPid) => {
          // waiting for the card, it has not touched card_seen yet (an insert there would hold a lock on the table)
          const { rows } = await sql<{ n: number }>`
            select count(*)::int as n from pg_locks where pid = ${waiterPid} and relation::regclass::text like '%card_seen%'`.execute(t.services.db);
          assert.equal(rows[0]!.n, 0, 'no lock on card_seen while waiting for the card');
        });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json().card.seen, [t.tenant.userId]);
        assert.equal(res.json().card.__v, 1);
      });

      it('answers 404, not 500, when the card is deleted while the first view waits for its lock', async () => {
        const cardId = await newCard();
        const res = await viewWhileHeld(
          cardId,
          async () => {},
          async (trx) => {
            await trx.deleteFrom('cards').where('id', '=', cardId).execute();
          },
        );
        assert.equal(res.statusCode, 404, res.body);
      });

      it('answers 404 when the card is marked deleted (with its list) while the first view waits for its lock', async () => {
        const cardId = await newCard();
        const res = await viewWhileHeld(
          cardId,
          async () => {},
          async (trx) => {
            await trx.updateTable('cards').set({ deleted_at: new Date().toISOString() }).where('id', '=', cardId).execute();
          },
        );
        assert.equal(res.statusCode, 404, res.body);
        const seen = await t.services.db.selectFrom('card_seen').select('user_id').where('card_id', '=', cardId).execute();
        assert.deepEqual(seen, [], 'no seen row for a card marked deleted');
      });
    }
  });
}
