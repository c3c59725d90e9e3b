/**
 * Event retention: events older than EVENT_RETENTION_DAYS are pruned by the purge command and by the
 * server on its schedule; what `keepEvents` selects (webhook deliveries still pending) stays.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bootstrap } from '../../src/domain/account/bootstrap.ts';
import { pruneEvents, pruneExpiredEvents } from '../../src/domain/events/events.ts';
import { recordEvent } from '../../src/domain/events/record.ts';
import { newId } from '../../src/domain/shared/ids.ts';
import { inTransaction } from '../../src/domain/shared/transaction.ts';
import { runTaskboard } from '../support/cli.ts';
import { apiClient, buildTestApp, ENGINES, openTestStorage, serviceContext, type TestApp, type TestStorage, testConfig } from '../support/harness.ts';
import { eventually } from '../support/receiver.ts';

const DAY = 86_400_000;

for (const engine of ENGINES) {
  describe(`event retention [${engine}]`, () => {
    let test: TestStorage;
    before(async () => {
      test = await openTestStorage(engine);
    });
    after(() => test.dispose());

    /** Records one event of `type`, created `daysAgo` days ago; answers its id. */
    async function eventOf(type: string, daysAgo: number): Promise<string> {
      return inTransaction(serviceContext(test.storage), async (trx) => {
        const at = new Date(Date.now() - daysAgo * DAY).toISOString();
        return recordEvent(trx, null, type, { company: null }, {}, at).id;
      });
    }
    const types = async () => (await test.storage.db.selectFrom('events').select('type').orderBy('seq').execute()).map((row) => row.type);
    const clear = () => test.storage.db.deleteFrom('events').execute();

    it('pruneEvents deletes what is older than the cut-off, except what keep selects', async () => {
      await clear();
      await eventOf('old.gone', 100);
      const pending = await eventOf('old.kept', 100);
      await eventOf('recent', 10);
      const before = new Date(Date.now() - 90 * DAY).toISOString();
      const keep = (db: typeof test.storage.db) => db.selectFrom('events').select('id').where('id', '=', pending);
      assert.equal(await pruneEvents(test.storage.db, before, keep), 1);
      assert.deepEqual(await types(), ['old.kept', 'recent']);
      assert.equal(await pruneEvents(test.storage.db, before), 1, 'without keep, the kept one goes too');
      assert.deepEqual(await types(), ['recent']);
    });

    let webhookId: string | undefined;
    let ordinal = 0;
    /** A delivery of a webhook (made once) in `status`, created `createdDaysAgo` and last tried `triedDaysAgo` days ago. */
    async function deliveryOf(status: 'pending' | 'delivered' | 'failed', createdDaysAgo: number, triedDaysAgo: number | null): Promise<string> {
      const db = test.storage.db;
      if (!webhookId) {
        const tenant = await bootstrap(serviceContext(test.storage), { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive' });
        webhookId = newId();
        const now = new Date().toISOString();
        await db
          .insertInto('webhooks')
          .values({
            id: webhookId,
            company_id: tenant.companyId,
            url: 'http://127.0.0.1:9/hook',
            team_ids: '[]',
            board_ids: '[]',
            event_types: '["*"]',
            enabled: 0,
            receiving_since: now,
            disabled_reason: null,
            secret: 'whsec_x',
            previous_secret: null,
            previous_secret_expires_at: null,
            creator_id: tenant.userId,
            created_at: now,
            updated_at: now,
            version: 0,
          } as never)
          .execute();
      }
      const id = newId();
      const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();
      const tried = triedDaysAgo === null ? null : ago(triedDaysAgo);
      await db
        .insertInto('webhook_deliveries')
        .values({
          id,
          webhook_id: webhookId,
          event_id: newId(),
          event_type: 'card.updated',
          ordinal: ++ordinal,
          payload: '{}',
          status,
          attempts: tried ? 1 : 0,
          first_attempt_at: tried,
          last_attempt_at: tried,
          next_attempt_at: ago(createdDaysAgo),
          created_at: ago(createdDaysAgo),
          delivered_at: status === 'delivered' ? tried : null,
        } as never)
        .execute();
      return id;
    }
    const deliveryIds = async () => (await test.storage.db.selectFrom('webhook_deliveries').select('id').execute()).map((row) => row.id).sort();

    it('prunes webhook deliveries that ended before the cut-off with the events, keeping pending ones however old', async () => {
      await test.storage.db.deleteFrom('webhook_deliveries').execute();
      await deliveryOf('delivered', 100, 100);
      await deliveryOf('failed', 100, 97);
      const pendingOld = await deliveryOf('pending', 100, 95);
      const pendingUntried = await deliveryOf('pending', 100, null);
      const deliveredRecent = await deliveryOf('delivered', 10, 10);
      // redelivered lately: ended within retention, though created long ago
      const redelivered = await deliveryOf('delivered', 100, 1);
      const result = await pruneExpiredEvents(serviceContext(test.storage), 90);
      assert.equal(result.deliveries, 2);
      assert.deepEqual(await deliveryIds(), [pendingOld, pendingUntried, deliveredRecent, redelivered].sort());
    });

    it('runs through `taskboard purge-attachments`, by EVENT_RETENTION_DAYS', async () => {
      await clear();
      await eventOf('old', 31);
      await eventOf('recent', 29);
      await test.storage.db.deleteFrom('webhook_deliveries').execute();
      await deliveryOf('failed', 31, 31);
      const kept = [await deliveryOf('delivered', 29, 29), await deliveryOf('pending', 31, 31)].sort();
      const run = await runTaskboard(['purge-attachments', '--json'], {
        DATABASE_URL: test.url,
        EVENT_RETENTION_DAYS: '30',
        UPLOAD_DIR: testConfig().uploadDir,
      });
      assert.equal(run.code, 0, run.stderr);
      const { before, ...pruned } = (JSON.parse(run.stdout) as { events: { before: string; events: number; deliveries: number } }).events;
      assert.deepEqual(pruned, { events: 1, deliveries: 1 });
      // the cut-off is EVENT_RETENTION_DAYS before the run (within the minute the run took)
      assert.ok(Math.abs(Date.parse(before) - (Date.now() - 30 * 86_400_000)) < 60_000, `cut-off ${before}`);
      assert.deepEqual(await types(), ['recent']);
      assert.deepEqual(await deliveryIds(), kept);
      const bad = await runTaskboard(['purge-attachments'], { DATABASE_URL: test.url, EVENT_RETENTION_DAYS: 'forever' });
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /EVENT_RETENTION_DAYS/);
    });
  });

  describe(`the server prunes events on its schedule [${engine}]`, () => {
    let t: TestApp;
    // the server's clock stands 91 days ahead: everything recorded now is past a 90-day retention
    before(async () => {
      t = await buildTestApp(engine, { config: { events: { retentionDays: 90, pruneIntervalMs: 20 } }, clock: { now: () => Date.now() + 91 * DAY } });
    });
    after(() => t.dispose());

    it('prunes events past retention without a request, keeping what keepEvents selects', async () => {
      const api = apiClient(t, t.tenant.apiKey);
      const created = await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Soon pruned' });
      assert.equal(created.statusCode, 201, created.body);
      // set before the event exists, so no scheduled run can come between
      t.services.keepEvents = (db) => db.selectFrom('events').select('id').where('type', '=', 'still.needed');
      await inTransaction(t.services, async (trx) => recordEvent(trx, null, 'still.needed', { company: null }));
      const left = await eventually(
        async () => (await t.services.db.selectFrom('events').select('type').execute()).map((row) => row.type),
        (types) => types.length === 1,
        10_000,
        'a scheduled prune',
      );
      assert.deepEqual(left, ['still.needed']);
    });
  });
}
