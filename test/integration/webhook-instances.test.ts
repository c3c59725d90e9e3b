/**
 * Two server instances on one PostgreSQL schema, each with its own dispatcher: 500 card changes
 * made through both reach one receiver, every event exactly once, in the feed's order, and never
 * two requests at once (one endpoint's deliveries go one at a time, whichever instance sends them).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type App, buildApp } from '../../src/app.ts';
import { type BootstrapResult, bootstrap } from '../../src/domain/account/bootstrap.ts';
import { dialectOf } from '../../src/storage/dialect.ts';
import { openStorage, type StorageConnection } from '../../src/storage/open.ts';
import { seedBoard } from '../support/fixtures.ts';
import { bearer, openTestStorage, type TestStorage, testConfig } from '../support/harness.ts';
import { eventually, type Receiver, startReceiver } from '../support/receiver.ts';

const CHANGES = 500;
const CARDS = 10;

describe('webhooks with two instances on one PostgreSQL', () => {
  let shared: TestStorage;
  let second: StorageConnection;
  let apps: App[];
  let tenant: BootstrapResult;
  let receiver: Receiver;
  let inFlight = 0;
  let mostAtOnce = 0;

  before(async () => {
    shared = await openTestStorage('postgres');
    second = openStorage(shared.url);
    const config = testConfig({ webhooks: { allowPrivateNetworks: true, timeoutMs: 5000, pollMs: 50 } });
    apps = await Promise.all(
      [shared.storage, second].map(async (storage) => {
        const app = await buildApp({ config, storage, rateLimiter: null, logger: false });
        await app.ready();
        return app;
      }),
    );
    tenant = await bootstrap(apps[0]!.services, { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' });
    receiver = await startReceiver();
    // each request is open from its arrival until its answer, a turn of the event loop later, so
    // a request sent while another is open is counted as overlapping
    receiver.respond = async () => {
      inFlight++;
      mostAtOnce = Math.max(mostAtOnce, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      return 204;
    };
  });
  after(async () => {
    for (const app of apps) await app.close();
    await receiver.close();
    await second.close();
    await shared.dispose();
  });

  it(`delivers ${CHANGES} changes made through both instances once each, in feed order, one at a time`, async () => {
    const [a, b] = apps as [App, App];
    const board = await seedBoard(a.services, tenant);
    const call = async (app: App, method: 'POST' | 'PATCH', url: string, payload: object) => {
      const res = await app.inject({ method, url, headers: bearer(tenant.apiKey), payload });
      assert.ok(res.statusCode < 300, `${method} ${url} → ${res.statusCode} ${res.body}`);
      return res.json();
    };
    const cards: string[] = [];
    for (let i = 0; i < CARDS; i++) cards.push((await call(a, 'POST', '/api/v1/cards', { list: board.listIds[0], name: `Card ${i}` })).card._id);
    const created = await call(b, 'POST', `/api/v1/webhooks?companyId=${tenant.companyId}`, { url: receiver.url, types: ['card.updated'] });

    // CARDS writers at once, alternating instances
    await Promise.all(
      cards.map(async (cardId, writer) => {
        for (let i = writer; i < CHANGES; i += CARDS) await call(i % 2 ? b : a, 'PATCH', `/api/v1/cards/${cardId}`, { name: `change ${i}` });
      }),
    );
    await receiver.until((r) => r.length >= CHANGES, 120_000, `${CHANGES} deliveries`);

    const bodies = receiver.verified(created.secret) as { data: { _id: string } }[];
    const feed = (await dialectOf(shared.storage.db).eventFeed.committedAfter(shared.storage.db, null, 10 * CHANGES)).filter((e) => e.type === 'card.updated');
    assert.equal(feed.length, CHANGES);
    assert.deepEqual(
      bodies.map((body) => body.data._id),
      feed.map((event) => event.id),
      'each event once, in feed order',
    );
    assert.equal(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size, CHANGES);
    assert.equal(mostAtOnce, 1, 'never two requests to the endpoint at once');
    // the last outcome is written just after its answer arrived
    const rows = await eventually(
      () => shared.storage.db.selectFrom('webhook_deliveries').select(['status', 'attempts']).execute(),
      (all) => all.every((row) => row.status === 'delivered'),
      20_000,
      'every delivery marked delivered',
    );
    assert.equal(rows.length, CHANGES);
    assert.ok(
      rows.every((row) => row.attempts === 1),
      'each delivered at its first attempt',
    );
  });
});
