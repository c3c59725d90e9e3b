/**
 * The dispatcher asks at every ring whether any webhook is enabled (`EnabledWebhooks`): the answer
 * is read from the database at most once per TTL, read again at once after this instance writes
 * webhooks (`changed`), and a read under way when they change is not kept. Here nothing tells this
 * `EnabledWebhooks` of the app's writes, so the API's writes stand for another instance's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ENABLED_WEBHOOKS_TTL_MS, EnabledWebhooks } from '../../src/domain/webhooks/dispatcher.ts';
import { apiClient, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { countStatements } from '../support/statement-counter.ts';

describe('whether any webhook is enabled', () => {
  const counter = countStatements();
  after(() => counter.stop());

  for (const engine of ENGINES) {
    describe(`[${engine}]`, () => {
      let t: TestApp;
      let now = Date.parse('2026-11-24T10:00:00Z');
      const clock = { now: () => now };

      before(async () => {
        t = await buildTestApp(engine, { webhookDispatcher: false });
      });
      after(() => t.dispose());

      const ask = (known: EnabledWebhooks) => counter.during(() => known.any(t.storage.db));

      it('reads once per TTL; another instance’s webhook is seen once the TTL has passed', async () => {
        const known = new EnabledWebhooks(clock);
        const first = await ask(known);
        assert.equal(first.result, false);
        assert.equal(first.statements.length, 1, 'read from the database');

        const created = await apiClient(t, t.tenant.apiKey)('POST', `/api/v1/webhooks?companyId=${t.tenant.companyId}`, {
          url: 'http://127.0.0.1:9/hook',
          types: ['*'],
        });
        assert.equal(created.statusCode, 201, created.body);
        now += ENABLED_WEBHOOKS_TTL_MS - 1;
        const within = await ask(known);
        assert.deepEqual([within.result, within.statements.length], [false, 0], 'the answer of the last read, without a statement');

        now += 1;
        const past = await ask(known);
        assert.deepEqual([past.result, past.statements.length], [true, 1], 'read again once the TTL has passed');
      });

      it('reads again at once after this instance changed webhooks', async () => {
        const known = new EnabledWebhooks(clock);
        await ask(known);
        known.changed();
        const again = await ask(known);
        assert.equal(again.statements.length, 1);
      });

      it('does not keep a read that was under way when webhooks changed', async () => {
        const known = new EnabledWebhooks(clock);
        const reading = known.any(t.storage.db);
        known.changed();
        await reading;
        const next = await ask(known);
        assert.equal(next.statements.length, 1, 'the read under way was not kept');
        const then = await ask(known);
        assert.equal(then.statements.length, 0, 'that read was');
      });
    });
  }
});
