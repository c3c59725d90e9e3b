/**
 * The dispatcher's claim (`dueHeads`) finds each enabled webhook's first pending delivery when it is
 * due and not leased, and its work grows with the number of webhooks, not with their backlogs: with
 * thousands of deliveries waiting behind one head, each engine reads a handful of rows. On
 * PostgreSQL it locks the heads it answers (another claim passes over them), not their webhooks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { bootstrap } from '../../src/domain/account/bootstrap.ts';
import { newId } from '../../src/domain/shared/ids.ts';
import type { NewRow, Transaction } from '../../src/storage/database.ts';
import { dueHeads } from '../../src/storage/repositories/webhooks.ts';
import { ENGINES, openTestStorage, serviceContext, type TestStorage } from '../support/harness.ts';
import { planNodes, postgresPlan, sqlitePlan, statementsOf } from '../support/plans.ts';

const BACKLOG = 3000;
const NOW = '2031-06-01T12:00:00.000Z';
const EARLIER = '2031-06-01T11:00:00.000Z';
const LATER = '2031-06-01T13:00:00.000Z';

for (const engine of ENGINES) {
  describe(`the heads of the webhooks' queues [${engine}]`, () => {
    let test: TestStorage;
    const heads: Record<string, string> = {};
    const webhooks: Record<string, string> = {};
    before(async () => {
      test = await openTestStorage(engine);
      const db = test.storage.db;
      const tenant = await bootstrap(serviceContext(test.storage), { company: 'Acme', team: 'Core', email: 'o@acme.test', fullName: 'O' });
      let ordinal = 0;
      const webhook = async (name: string, enabled: boolean, deliveries: Partial<NewRow<'webhook_deliveries'>>[]) => {
        const id = newId();
        webhooks[name] = id;
        await db
          .insertInto('webhooks')
          .values({
            id,
            company_id: tenant.companyId,
            url: `http://127.0.0.1:9/${name}`,
            team_ids: '[]',
            board_ids: '[]',
            event_types: '["*"]',
            enabled: enabled ? 1 : 0,
            receiving_since: EARLIER,
            disabled_reason: null,
            secret: 'whsec_x',
            previous_secret: null,
            previous_secret_expires_at: null,
            creator_id: tenant.userId,
            created_at: EARLIER,
            updated_at: EARLIER,
            version: 0,
          } as never)
          .execute();
        const rows = deliveries.map((d) => ({
          id: newId(),
          webhook_id: id,
          event_id: newId(),
          event_type: 'card.updated',
          ordinal: ++ordinal,
          payload: '{}',
          status: 'pending',
          attempts: 0,
          first_attempt_at: null,
          last_attempt_at: null,
          last_status_code: null,
          last_error: null,
          next_attempt_at: EARLIER,
          lease_owner: null,
          lease_until: null,
          created_at: EARLIER,
          delivered_at: null,
          ...d,
        }));
        for (let from = 0; from < rows.length; from += 500)
          await db
            .insertInto('webhook_deliveries')
            .values(rows.slice(from, from + 500) as never)
            .execute();
        heads[name] = (rows.find((r) => r.status === 'pending') ?? rows[0])?.id as string;
      };
      const pending = (n: number, d: Partial<NewRow<'webhook_deliveries'>> = {}) => Array.from({ length: n }, () => d);
      // a long backlog behind a due head, after deliveries that have ended
      await webhook('backlog', true, [...pending(50, { status: 'delivered', delivered_at: EARLIER }), ...pending(BACKLOG)]);
      // a head another sender holds: the webhook waits, though what follows is due
      await webhook('leased', true, [{ lease_owner: 'other', lease_until: LATER }, ...pending(20)]);
      // a head waiting for its retry: what follows waits behind it
      await webhook('retrying', true, [{ attempts: 1, next_attempt_at: LATER }, ...pending(20)]);
      await webhook('disabled', false, pending(20));
      // a lease that ran out: the head is free again
      await webhook('expired', true, [{ lease_owner: 'gone', lease_until: EARLIER, next_attempt_at: '2031-06-01T11:30:00.000Z' }, ...pending(5)]);
      if (engine === 'postgres') await sql`analyze webhook_deliveries`.execute(db);
    });
    after(() => test.dispose());

    const due = (limit: number) => test.storage.db.transaction().execute((trx) => dueHeads(trx, NOW, limit));

    it("answers each enabled webhook's first pending delivery when due and not leased, the longest due first", async () => {
      assert.deepEqual(
        (await due(10)).map((d) => d.id),
        [heads.backlog, heads.expired],
      );
      assert.deepEqual(
        (await due(1)).map((d) => d.id),
        [heads.backlog],
      );
    });

    it('reads a few rows per webhook, whatever their backlogs', async () => {
      const [query, ...more] = await statementsOf(test.storage.db, (db) => dueHeads(db as Transaction, NOW, 10));
      assert.ok(query && more.length === 0);
      if (engine === 'sqlite') {
        const plan = await sqlitePlan(test.storage.db, query);
        // the webhooks are walked; each head is found through its queue's index, then read by id
        assert.ok(
          plan.some((step) => step.includes('webhook_deliveries_queue')),
          plan.join('\n'),
        );
        assert.ok(!plan.some((step) => step.includes('webhook_deliveries_due')), plan.join('\n'));
      } else {
        const nodes = planNodes(await postgresPlan(test.storage.db, query, ['analyze']));
        const most = Math.max(...nodes.map((node) => (node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0)));
        assert.ok(most < 100, JSON.stringify(nodes.map((n) => [n['Node Type'], n['Index Name'], n['Actual Rows'], n['Rows Removed by Filter']])));
      }
    });

    if (engine === 'postgres') {
      it('locks the heads it answers, not their webhooks: a webhook edited meanwhile does not wait on the claim', async () => {
        const db = test.storage.db;
        let release = () => {};
        const holding = new Promise<void>((resolve) => (release = resolve));
        let claimed!: () => void;
        const claimedHeads = new Promise<void>((resolve) => (claimed = resolve));
        const claim = db.transaction().execute(async (trx) => {
          assert.deepEqual(
            (await dueHeads(trx, NOW, 10)).map((d) => d.id),
            [heads.backlog, heads.expired],
          );
          claimed();
          await holding;
        });
        try {
          await claimedHeads;
          await db.transaction().execute(async (trx) => {
            await sql`set local lock_timeout = '2s'`.execute(trx);
            await trx
              .updateTable('webhooks')
              .set({ updated_at: LATER })
              .where('id', '=', webhooks.backlog as string)
              .execute();
          });
          // the head itself stays locked: another claim passes over it
          await db.transaction().execute(async (trx) => {
            assert.deepEqual(await dueHeads(trx, NOW, 10), []);
          });
        } finally {
          release();
          await claim;
        }
      });
    }
  });
}
