/**
 * The dispatcher asks at every ring whether any webhook is enabled (`EnabledWebhooks`): the answer
 * is read from the database at most once per TTL, read again at once after this instance writes
 * webhooks (`changed`), and a read under way when they change is not kept. Here nothing tells this
 * `EnabledWebhooks` of the app's writes, so the API's writes stand for another instance's: an answer
 * kept shows as a stale one, an answer read again as the database's.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { ENABLED_WEBHOOKS_TTL_MS, EnabledWebhooks } from '../../src/domain/webhooks/dispatcher.ts';
import { apiClient, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';

describe('whether any webhook is enabled', () => {
  for (const engine of ENGINES) {
    describe(`[${engine}]`, () => {
      let t: TestApp;
      let now = Date.parse('2026-11-24T10:00:00Z');
      const clock = { now: () => now };
      const created: string[] = [];

      before(async () => {
        t = await buildTestApp(engine, { webhookDispatcher: false });
      });
      after(() => t.dispose());
      afterEach(async () => {
        for (const id of created.splice(0)) {
          const removed = await apiClient(t, t.tenant.apiKey)('DELETE', `/api/v1/webhooks/${id}`);
          assert.equal(removed.statusCode, 200, removed.body);
        }
      });

      /** A webhook made by "another instance": through the API, unknown to the `EnabledWebhooks` under test. */
      async function createWebhook() {
        const res = await apiClient(t, t.tenant.apiKey)('POST', `/api/v1/webhooks?companyId=${t.tenant.companyId}`, {
          url: 'http://127.0.0.1:9/hook',
          types: ['*'],
        });
        assert.equal(res.statusCode, 201, res.body);
        created.push(JSON.parse(res.body).webhook._id);
      }

      it('keeps its answer for the TTL; another instance’s webhook is seen once the TTL has passed', async () => {
        const known = new EnabledWebhooks(clock);
        assert.equal(await known.any(t.storage.db), false);
        await createWebhook();
        now += ENABLED_WEBHOOKS_TTL_MS - 1;
        assert.equal(await known.any(t.storage.db), false, 'the answer of the last read, kept');
        now += 1;
        assert.equal(await known.any(t.storage.db), true, 'read again once the TTL has passed');
      });

      it('reads again at once after this instance changed webhooks', async () => {
        const known = new EnabledWebhooks(clock);
        assert.equal(await known.any(t.storage.db), false);
        await createWebhook();
        known.changed();
        assert.equal(await known.any(t.storage.db), true);
      });

      it('does not keep a read that was under way when webhooks changed', async () => {
        const known = new EnabledWebhooks(clock);
        const reading = known.any(t.storage.db);
        known.changed();
        assert.equal(await reading, false);
        await createWebhook();
        assert.equal(await known.any(t.storage.db), true, 'the read under way was not kept');
        const removed = created.shift() as string;
        assert.equal((await apiClient(t, t.tenant.apiKey)('DELETE', `/api/v1/webhooks/${removed}`)).statusCode, 200);
        assert.equal(await known.any(t.storage.db), true, 'the read after the change was kept');
      });
    });
  }
});
