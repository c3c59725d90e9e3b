/**
 * Webhooks end to end: the routes, who reaches them, and delivery to real receiver servers, every
 * delivery verified with the `standardwebhooks` package's own verifier.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { BuildOptions } from '../../src/app.ts';
import { newId, nowIso } from '../../src/domain/shared/ids.ts';
import { addMember, addTeam, type BoardFixture, seedBoard } from '../support/fixtures.ts';
import { type Api, apiClient, buildTestApp, buildTwoCompanyApp, ENGINES, type OtherCompany, otherCompany, type TestApp } from '../support/harness.ts';
import { eventually, type Receiver, startReceiver } from '../support/receiver.ts';
import { describeTiers } from '../support/tiers.ts';

interface DeliveryRecord {
  _id: string;
  event: string;
  type: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
}

interface Envelope {
  type: string;
  timestamp: string;
  data: { _id: string; type: string; company: string; board: string; card: string; actor: { user: string; apiKey: string }; data: unknown };
}

/** A card on a seeded board, made through the API (its creation may record events of its own). */
async function newCard(api: Api, board: BoardFixture, name = 'Card'): Promise<string> {
  const res = await api('POST', '/api/v1/cards', { list: board.listIds[0], name });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().card._id;
}

async function rename(api: Api, cardId: string, name: string): Promise<void> {
  const res = await api('PATCH', `/api/v1/cards/${cardId}`, { name });
  assert.equal(res.statusCode, 200, res.body);
}

async function createWebhook(api: Api, companyId: string, body: Record<string, unknown>): Promise<{ webhook: { _id: string }; secret: string }> {
  const res = await api('POST', `/api/v1/webhooks?companyId=${companyId}`, body);
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

async function deliveries(api: Api, webhookId: string): Promise<DeliveryRecord[]> {
  const res = await api('GET', `/api/v1/webhooks/${webhookId}/deliveries`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().deliveries;
}

/** An app with one board and a card on it, a receiver, and a webhook of `card.updated` to it. */
async function deliveryWorld(engine: (typeof ENGINES)[number], dispatcher?: BuildOptions['webhookDispatcher'], config?: Parameters<typeof buildTestApp>[1]) {
  const t = await buildTestApp(engine, { webhookDispatcher: dispatcher, ...config });
  const api = apiClient(t, t.tenant.apiKey);
  const board = await seedBoard(t.services, t.tenant);
  const cardId = await newCard(api, board);
  const receiver = await startReceiver();
  const { webhook, secret } = await createWebhook(api, t.tenant.companyId, { url: receiver.url, types: ['card.updated'] });
  return {
    t,
    api,
    board,
    cardId,
    receiver,
    webhookId: webhook._id,
    secret,
    async dispose() {
      await t.dispose();
      await receiver.close();
    },
  };
}

for (const engine of ENGINES) {
  describe(`webhook routes and reach [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    let other: OtherCompany;
    let receiver: Receiver;

    before(async () => {
      ({ t, api, other } = await buildTwoCompanyApp(engine));
      receiver = await startReceiver();
    });
    after(async () => {
      await t.dispose();
      await receiver.close();
    });

    it('creates a webhook, shows its secret once, lists, reads, changes and deletes it', async () => {
      const { webhook, secret } = await createWebhook(api, t.tenant.companyId, {
        url: receiver.url,
        types: ['card.*', 'comment.created'],
        teams: [t.tenant.teamId],
      });
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      const read = await api('GET', `/api/v1/webhooks/${webhook._id}`);
      assert.equal(read.statusCode, 200);
      assert.doesNotMatch(read.body, /whsec_/);
      assert.deepEqual(
        { ...read.json().webhook, createdAt: undefined, updatedAt: undefined },
        {
          _id: webhook._id,
          company: t.tenant.companyId,
          url: receiver.url,
          teams: [t.tenant.teamId],
          boards: [],
          types: ['card.*', 'comment.created'],
          enabled: true,
          disabledReason: null,
          previousSecretExpiresAt: null,
          createdAt: undefined,
          updatedAt: undefined,
          __v: 0,
        },
      );
      const list = await api('GET', '/api/v1/webhooks');
      assert.deepEqual(
        list.json().webhooks.map((w: { _id: string }) => w._id),
        [webhook._id],
      );
      assert.doesNotMatch(list.body, /whsec_/);

      const patched = await api('PATCH', `/api/v1/webhooks/${webhook._id}`, { enabled: false, types: ['card.updated'] });
      assert.equal(patched.statusCode, 200, patched.body);
      assert.equal(patched.json().webhook.enabled, false);
      assert.deepEqual(patched.json().webhook.types, ['card.updated']);
      assert.equal(patched.json().webhook.__v, 1);

      const rotated = await api('POST', `/api/v1/webhooks/${webhook._id}/rotate-secret`);
      assert.equal(rotated.statusCode, 200, rotated.body);
      assert.notEqual(rotated.json().secret, secret);
      assert.ok(rotated.json().webhook.previousSecretExpiresAt > nowIso());

      const deleted = await api('DELETE', `/api/v1/webhooks/${webhook._id}`);
      assert.equal(deleted.statusCode, 200);
      assert.equal((await api('GET', `/api/v1/webhooks/${webhook._id}`)).statusCode, 404);
    });

    it('refuses bad input with a 400 naming the field', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ url: 'ftp://example.com/x', types: ['card.*'] }, 'body.url'],
        [{ url: 'not a url', types: ['card.*'] }, 'body.url'],
        [{ url: 'https://user:pw@example.com/', types: ['card.*'] }, 'body.url'],
        [{ url: receiver.url, types: [] }, 'types'],
        [{ url: receiver.url, types: ['card.**'] }, 'types'],
        [{ url: receiver.url, types: ['card.*'], teams: [other.teamId] }, 'body.teams[0]'],
        [{ url: receiver.url, types: ['card.*'], boards: [newId()] }, 'body.boards[0]'],
      ];
      for (const [body, field] of cases) {
        const res = await api('POST', `/api/v1/webhooks?companyId=${t.tenant.companyId}`, body);
        assert.equal(res.statusCode, 400, `${JSON.stringify(body)} → ${res.body}`);
        assert.ok(res.body.includes(field), `${JSON.stringify(body)} → ${res.body}`);
      }
      assert.deepEqual((await api('GET', '/api/v1/webhooks')).json().webhooks, []);
    });

    it("lets another company's owner neither list, read, change, nor create webhooks of this company; a member gets 403", async () => {
      const { webhook } = await createWebhook(api, t.tenant.companyId, { url: receiver.url, types: ['*'] });
      assert.equal((await other.api('POST', `/api/v1/webhooks?companyId=${t.tenant.companyId}`, { url: receiver.url, types: ['*'] })).statusCode, 404);
      assert.deepEqual((await other.api('GET', '/api/v1/webhooks')).json().webhooks, []);
      assert.equal((await other.api('GET', `/api/v1/webhooks?companyId=${t.tenant.companyId}`)).statusCode, 404);
      for (const [method, url] of [
        ['GET', `/api/v1/webhooks/${webhook._id}`],
        ['PATCH', `/api/v1/webhooks/${webhook._id}`],
        ['DELETE', `/api/v1/webhooks/${webhook._id}`],
        ['POST', `/api/v1/webhooks/${webhook._id}/rotate-secret`],
        ['GET', `/api/v1/webhooks/${webhook._id}/deliveries`],
      ] as const) {
        const res = await other.api(method, url, method === 'PATCH' ? { enabled: false } : undefined);
        assert.equal(res.statusCode, 404, `${method} ${url} → ${res.body}`);
      }
      const member = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: `m-${newId()}@acme.test` });
      const memberApi = apiClient(t, member.apiKey);
      assert.equal((await memberApi('POST', `/api/v1/webhooks?companyId=${t.tenant.companyId}`, { url: receiver.url, types: ['*'] })).statusCode, 403);
      assert.equal((await memberApi('GET', `/api/v1/webhooks/${webhook._id}`)).statusCode, 403);
      assert.deepEqual((await memberApi('GET', '/api/v1/webhooks')).json().webhooks, []);
      await api('DELETE', `/api/v1/webhooks/${webhook._id}`);
    });
  });

  describe(`webhook delivery to a real receiver [${engine}]`, () => {
    it("delivers each change once, signed, in commit order; another company's webhook receives none of it", async () => {
      const w = await deliveryWorld(engine);
      try {
        const globex = await otherCompany(w.t);
        const spy = await startReceiver();
        await createWebhook(globex.api, globex.companyId, { url: spy.url, types: ['*'] });
        const names = ['one', 'two', 'three', 'four', 'five'];
        for (const name of names) await rename(w.api, w.cardId, name);
        await w.receiver.until((r) => r.length >= names.length, 20_000, 'five deliveries');
        const bodies = w.receiver.verified(w.secret) as Envelope[];
        assert.deepEqual(
          bodies.map((b) => b.type),
          names.map(() => 'card.updated'),
        );
        assert.ok(bodies.every((b) => b.data.card === w.cardId && b.data.board === w.board.boardId && b.data.company === w.t.tenant.companyId));
        assert.ok(bodies.every((b) => b.data.actor.user === w.t.tenant.userId));
        // commit order: the events' ids in the order the record holds them
        const recorded = await w.t.storage.db.selectFrom('events').select(['id', 'seq']).where('type', '=', 'card.updated').orderBy('seq').execute();
        assert.deepEqual(
          bodies.map((b) => b.data._id),
          recorded.map((e) => e.id),
        );
        assert.equal(new Set(w.receiver.received.map((r) => r.headers['webhook-id'])).size, names.length);
        const list = await eventually(
          () => deliveries(w.api, w.webhookId),
          (d) => d.every((x) => x.status === 'delivered'),
          20_000,
          'delivered',
        );
        assert.deepEqual(
          list.map((d) => [d.attempts, d.lastStatusCode, d.nextAttemptAt]),
          names.map(() => [1, 204, null]),
        );
        assert.equal(spy.received.length, 0, "the other company's receiver got nothing");
        assert.equal((await w.api('DELETE', `/api/v1/webhooks/${w.webhookId}`)).statusCode, 200);
        const left = await w.t.storage.db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', w.webhookId).execute();
        assert.deepEqual(left, [], 'its deliveries went with it');
        await spy.close();
      } finally {
        await w.dispose();
      }
    });

    it('retries a failing receiver with the same webhook-id until it answers 2xx, then stops', async () => {
      const w = await deliveryWorld(engine, { retrySchedule: [0] });
      try {
        w.receiver.respond = (_r, index) => (index < 3 ? 500 : 200);
        await rename(w.api, w.cardId, 'flaky');
        await w.receiver.until((r) => r.length >= 4, 20_000, 'four attempts');
        const [delivery] = await eventually(
          () => deliveries(w.api, w.webhookId),
          (d) => d[0]?.status === 'delivered',
          20_000,
          'delivered',
        );
        assert.equal(w.receiver.received.length, 4, 'no attempt after the success');
        assert.deepEqual(
          w.receiver.received.map((r) => r.headers['webhook-id']),
          [1, 2, 3, 4].map(() => delivery?._id),
        );
        assert.equal(w.receiver.verified(w.secret).length, 4);
        assert.equal(delivery?.attempts, 4);
        assert.equal(delivery?.lastStatusCode, 200);
      } finally {
        await w.dispose();
      }
    });
  });
}

describe('webhook filters [sqlite]', () => {
  it('delivers only the types, teams and boards a webhook names', async () => {
    const w = await deliveryWorld('sqlite');
    try {
      const second = await seedBoard(w.t.services, w.t.tenant);
      const secondCard = await newCard(w.api, second);
      const onSecond = await startReceiver();
      const onComments = await startReceiver();
      const onOtherTeam = await startReceiver();
      const boardHook = await createWebhook(w.api, w.t.tenant.companyId, { url: onSecond.url, types: ['card.*'], boards: [second.boardId] });
      await createWebhook(w.api, w.t.tenant.companyId, { url: onComments.url, types: ['comment.*'] });
      const otherTeam = await addTeam(w.t.services, w.t.tenant.companyId, 'Elsewhere', [w.t.tenant.userId]);
      await createWebhook(w.api, w.t.tenant.companyId, { url: onOtherTeam.url, types: ['*'], teams: [otherTeam] });

      await rename(w.api, w.cardId, 'first board');
      await rename(w.api, secondCard, 'second board');
      await w.receiver.until((r) => r.length >= 2, 20_000, 'both changes at the catch-all');
      await onSecond.until((r) => r.length >= 1, 20_000, "the second board's change");
      // everything queued for these webhooks has been attempted: nothing else is coming
      await eventually(
        () => w.t.storage.db.selectFrom('webhook_deliveries').select('status').execute(),
        (rows) => rows.every((row) => row.status === 'delivered'),
      );
      const [only] = onSecond.verified(boardHook.secret) as Envelope[];
      assert.equal(onSecond.received.length, 1);
      assert.equal(only?.data.card, secondCard);
      assert.equal(onComments.received.length, 0);
      assert.equal(onOtherTeam.received.length, 0);
      await Promise.all([onSecond.close(), onComments.close(), onOtherTeam.close()]);
    } finally {
      await w.dispose();
    }
  });
});

describe('webhook delivery: timeouts, giving up, rotation, redelivery, redirects [sqlite]', () => {
  it('cuts a receiver that hangs at the timeout and schedules a retry', async () => {
    const w = await deliveryWorld('sqlite', undefined, { config: { webhooks: { allowPrivateNetworks: true, timeoutMs: 300, pollMs: 500 } } });
    try {
      w.receiver.respond = () => 'hang';
      await rename(w.api, w.cardId, 'slow');
      await w.receiver.until((r) => r[0]?.closedEarly === true, 20_000, 'the sender to cut the connection');
      const [delivery] = await eventually(
        () => deliveries(w.api, w.webhookId),
        (d) => d[0]?.attempts === 1,
        20_000,
        'the attempt recorded',
      );
      assert.equal(delivery?.status, 'pending');
      assert.match(delivery?.lastError ?? '', /timed out after 300 ms/);
      assert.ok(delivery?.nextAttemptAt);
    } finally {
      await w.dispose();
    }
  });

  it('marks a delivery failing for 3 days failed and disables its webhook, saying why; enabling sends it again', async () => {
    let now = Date.now();
    const w = await deliveryWorld('sqlite', undefined, { clock: { now: () => now } });
    try {
      w.receiver.respond = () => 503;
      await rename(w.api, w.cardId, 'down');
      const [first] = await eventually(
        () => deliveries(w.api, w.webhookId),
        (d) => d[0]?.attempts === 1,
        20_000,
        'the first attempt',
      );
      assert.equal(first?.status, 'pending');
      const wait = Date.parse(first?.nextAttemptAt ?? '') - now;
      assert.ok(wait >= 4000 && wait <= 6000, `the first retry waits about 5 s (${wait} ms)`);
      now += 3 * 24 * 3600 * 1000 + 1000;
      w.t.app.webhookDispatcher?.wake();
      const [failed] = await eventually(
        () => deliveries(w.api, w.webhookId),
        (d) => d[0]?.status === 'failed',
        20_000,
        'failed',
      );
      assert.equal(failed?.attempts, 2);
      const webhook = (await w.api('GET', `/api/v1/webhooks/${w.webhookId}`)).json().webhook;
      assert.equal(webhook.enabled, false);
      assert.match(webhook.disabledReason, /failed since .* \(last: HTTP 503\)/);

      // a change while disabled is not fanned out to it
      await rename(w.api, w.cardId, 'while disabled');
      w.receiver.respond = () => 204;
      await w.api('POST', `/api/v1/webhooks/${w.webhookId}/deliveries/${failed?._id}/redeliver`);
      const enabled = await w.api('PATCH', `/api/v1/webhooks/${w.webhookId}`, { enabled: true });
      assert.equal(enabled.json().webhook.disabledReason, null);
      await eventually(
        () => deliveries(w.api, w.webhookId),
        (d) => d[0]?.status === 'delivered',
        20_000,
        'redelivered',
      );
      assert.equal(w.receiver.received.at(-1)?.headers['webhook-id'], failed?._id);
      assert.equal((await deliveries(w.api, w.webhookId)).length, 1);
    } finally {
      await w.dispose();
    }
  });

  it('signs with the old and the new secret for the 24 h after a rotation', async () => {
    const w = await deliveryWorld('sqlite');
    try {
      const rotated = (await w.api('POST', `/api/v1/webhooks/${w.webhookId}/rotate-secret`)).json();
      await rename(w.api, w.cardId, 'rotated');
      await w.receiver.until((r) => r.length >= 1);
      const [received] = w.receiver.received;
      assert.equal(received?.headers['webhook-signature']?.split(' ').length, 2);
      assert.equal(w.receiver.verified(w.secret).length, 1, 'the old secret verifies');
      assert.equal(w.receiver.verified(rotated.secret).length, 1, 'the new secret verifies');
    } finally {
      await w.dispose();
    }
  });

  it('signs with the new secret only once the 24 h after a rotation have passed', async () => {
    let now = Date.now();
    const w = await deliveryWorld('sqlite', undefined, { clock: { now: () => now } });
    try {
      const rotated = (await w.api('POST', `/api/v1/webhooks/${w.webhookId}/rotate-secret`)).json();
      // the dispatcher's clock a second past the overlap the rotation answered (set at its own time)
      now = Date.parse(rotated.webhook.previousSecretExpiresAt) + 1000;
      await rename(w.api, w.cardId, 'after the overlap');
      await w.receiver.until((r) => r.length >= 1);
      const [received] = w.receiver.received;
      const headers = received?.headers ?? {};
      // signed at the dispatcher's clock, a day ahead: checked against each secret's own signature
      // (the package's verify would refuse the timestamp as too new)
      const signedAt = new Date(Number(headers['webhook-timestamp']) * 1000);
      const signature = (secret: string) => new Webhook(secret).sign(headers['webhook-id'] ?? '', signedAt, received?.body ?? '');
      assert.equal(headers['webhook-signature'], signature(rotated.secret), 'the new secret alone signs');
      assert.notEqual(signature(w.secret), signature(rotated.secret));
    } finally {
      await w.dispose();
    }
  });

  it('redelivers a delivered event with the same webhook-id', async () => {
    const w = await deliveryWorld('sqlite');
    try {
      await rename(w.api, w.cardId, 'again');
      const [delivery] = await eventually(
        () => deliveries(w.api, w.webhookId),
        (d) => d[0]?.status === 'delivered',
        20_000,
        'delivered',
      );
      const res = await w.api('POST', `/api/v1/webhooks/${w.webhookId}/deliveries/${delivery?._id}/redeliver`);
      assert.equal(res.statusCode, 200, res.body);
      await w.receiver.until((r) => r.length >= 2, 20_000, 'the redelivery');
      assert.deepEqual(
        w.receiver.received.map((r) => r.headers['webhook-id']),
        [delivery?._id, delivery?._id],
      );
      assert.equal(w.receiver.verified(w.secret).length, 2);
      assert.equal((await w.api('POST', `/api/v1/webhooks/${w.webhookId}/deliveries/${newId()}/redeliver`)).statusCode, 404);
    } finally {
      await w.dispose();
    }
  });

  it('does not follow a redirect: a 3xx is a failed attempt', async () => {
    const w = await deliveryWorld('sqlite');
    try {
      w.receiver.respond = (_r, index) => (index === 0 ? 302 : 204);
      await rename(w.api, w.cardId, 'moved');
      const [delivery] = await eventually(
        () => deliveries(w.api, w.webhookId),
        (d) => d[0]?.attempts === 1,
        20_000,
        'the attempt',
      );
      assert.equal(delivery?.status, 'pending');
      assert.equal(delivery?.lastStatusCode, 302);
      assert.equal(w.receiver.received.length, 1);
    } finally {
      await w.dispose();
    }
  });
});

describe('webhook destinations: SSRF refusals (private networks not allowed) [sqlite]', () => {
  let t: TestApp;
  let api: Api;
  let receiver: Receiver;
  const privateConfig = { webhooks: { allowPrivateNetworks: false, timeoutMs: 2000, pollMs: 500 } };
  before(async () => {
    t = await buildTestApp('sqlite', { config: privateConfig });
    api = apiClient(t, t.tenant.apiKey);
    receiver = await startReceiver();
  });
  after(async () => {
    await t.dispose();
    await receiver.close();
  });

  it('refuses loopback, private, link-local, metadata and unique-local destinations at creation', async () => {
    for (const url of [
      'http://127.0.0.1/hook',
      'http://localhost:8080/hook',
      'http://10.1.2.3/hook',
      'http://192.168.0.10/hook',
      'http://172.16.5.5/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://100.100.100.200/',
      'http://[::1]/hook',
      'http://[fd00:ec2::254]/',
      'http://[::ffff:127.0.0.1]/',
      'http://0.0.0.0/',
    ]) {
      const res = await api('POST', `/api/v1/webhooks?companyId=${t.tenant.companyId}`, { url, types: ['*'] });
      assert.equal(res.statusCode, 400, `${url} → ${res.body}`);
      assert.match(res.body, /refused/);
    }
    const ok = await api('POST', `/api/v1/webhooks?companyId=${t.tenant.companyId}`, { url: 'https://93.184.215.14/hook', types: ['*'] });
    assert.equal(ok.statusCode, 201, ok.body);
    await api('DELETE', `/api/v1/webhooks/${ok.json().webhook._id}`);
  });

  it('refuses at delivery too: a loopback address, by literal or by a name resolving to it, never gets a request', async () => {
    const board = await seedBoard(t.services, t.tenant);
    const cardId = await newCard(api, board);
    const port = new URL(receiver.url).port;
    const now = nowIso();
    // written past the creation check, as a webhook whose name later resolves somewhere private would be
    for (const url of [`http://127.0.0.1:${port}/hook`, `http://localhost:${port}/hook`]) {
      await t.storage.db
        .insertInto('webhooks')
        .values({
          id: newId(),
          company_id: t.tenant.companyId,
          url,
          team_ids: '[]',
          board_ids: '[]',
          event_types: '["card.updated"]',
          enabled: 1,
          receiving_since: now,
          disabled_reason: null,
          secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
          previous_secret: null,
          previous_secret_expires_at: null,
          creator_id: t.tenant.userId,
          created_at: now,
          updated_at: now,
          version: 0,
        })
        .execute();
    }
    await rename(api, cardId, 'smuggled');
    const attempted = await eventually(
      () => t.storage.db.selectFrom('webhook_deliveries').select(['attempts', 'last_error']).execute(),
      (rows) => rows.length === 2 && rows.every((row) => row.attempts >= 1),
      20_000,
      'both attempts',
    );
    for (const row of attempted) assert.match(row.last_error ?? '', /refused: .*(127\.0\.0\.1|::1)/);
    assert.equal(receiver.received.length, 0);
  });
});

describeTiers('webhook routes', {
  engines: ['sqlite'],
  given: async (t) => {
    const receiver = await startReceiver();
    after(() => receiver.close());
    return { url: receiver.url, companyId: t.tenant.companyId };
  },
  calls: async (api, given, t) => {
    const { webhook } = (await api('POST', `/api/v1/webhooks?companyId=${given.companyId}`, { url: given.url, types: ['card.*'] })).json();
    await api('GET', '/api/v1/webhooks');
    await api('GET', `/api/v1/webhooks/${webhook._id}`);
    await api('PATCH', `/api/v1/webhooks/${webhook._id}`, { types: ['card.updated'] });
    await api('POST', `/api/v1/webhooks/${webhook._id}/rotate-secret`);
    const board = await seedBoard(t.services, t.tenant);
    const card = (await api('POST', '/api/v1/cards', { list: board.listIds[0], name: 'x' })).json().card;
    await api('PATCH', `/api/v1/cards/${card._id}`, { name: 'y' });
    // waited for in the database: these reads must not count against the key
    await eventually(
      () => t.storage.db.selectFrom('webhook_deliveries').select('id').execute(),
      (rows) => rows.length === 1,
    );
    const delivery = (await api('GET', `/api/v1/webhooks/${webhook._id}/deliveries`)).json().deliveries[0];
    await api('POST', `/api/v1/webhooks/${webhook._id}/deliveries/${delivery._id}/redeliver`);
    await api('DELETE', `/api/v1/webhooks/${webhook._id}`);
  },
  expected: [
    ['POST /api/v1/webhooks', 'medium'],
    ['GET /api/v1/webhooks', 'very-low'],
    ['GET /api/v1/webhooks/:webhookId', 'very-low'],
    ['PATCH /api/v1/webhooks/:webhookId', 'low'],
    ['POST /api/v1/webhooks/:webhookId/rotate-secret', 'secure'],
    ['POST /api/v1/cards', 'medium'],
    ['PATCH /api/v1/cards/:cardId', 'low'],
    ['GET /api/v1/webhooks/:webhookId/deliveries', 'very-low'],
    ['POST /api/v1/webhooks/:webhookId/deliveries/:deliveryId/redeliver', 'medium'],
    ['DELETE /api/v1/webhooks/:webhookId', 'low'],
  ],
});
