/**
 * Idempotency-Key on POST and PATCH: the first answer is replayed to a repeat (also by another app
 * instance on the same database, and after a restart), another request with the key is a 422, a
 * repeat while the first still runs a 409; expired keys are pruned.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { type App, buildApp } from '../../src/app.ts';
import { type BootstrapResult, bootstrap } from '../../src/domain/account/bootstrap.ts';
import { openStorage } from '../../src/storage/open.ts';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  findIdempotencyKey,
  pruneIdempotencyKeys,
  reclaimIdempotencyKey,
  releaseIdempotencyKey,
} from '../../src/storage/repositories/idempotency.ts';
import { multipart } from '../support/fixtures.ts';
import { bearer, ENGINES, openTestStorage, type TestStorage, testConfig } from '../support/harness.ts';

for (const engine of ENGINES) {
  describe(`Idempotency-Key [${engine}]`, () => {
    let test: TestStorage;
    let app: App;
    let tenant: BootstrapResult;
    let listId: string;
    let cardId: string;
    const config = testConfig();
    const opened: App[] = [];

    /**
     * Another instance of the app on the same database: its own connection pool. `gate`, when given,
     * runs for every request after the key's claim and before the handler (a fault or a hold injected
     * by the test).
     */
    async function instance(gate?: (request: FastifyRequest) => Promise<void>): Promise<App> {
      const storage = openStorage(test.url);
      const other = await buildApp({ config, storage, rateLimiter: null, logger: false });
      other.addHook('onClose', async () => storage.close());
      if (gate) other.addHook('preHandler', gate);
      await other.ready();
      opened.push(other);
      return other;
    }

    const post = (on: App, url: string, payload: unknown, key: string, headers: Record<string, string> = {}) =>
      on.inject({ method: 'POST', url, headers: { ...bearer(tenant.apiKey), 'idempotency-key': key, ...headers }, payload: payload as object });

    async function cardsNamed(name: string): Promise<number> {
      const rows = await test.storage.db.selectFrom('cards').select('id').where('name', '=', name).execute();
      return rows.length;
    }

    before(async () => {
      test = await openTestStorage(engine);
      app = await instance();
      tenant = await bootstrap(app.services, { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' });
      const api = (url: string, payload: unknown) => app.inject({ method: 'POST', url, headers: bearer(tenant.apiKey), payload: payload as object });
      const board = (await api(`/api/v1/boards?teamId=${tenant.teamId}`, { name: 'B' })).json().board._id as string;
      listId = (await api('/api/v1/lists', { board, name: 'L' })).json().list._id as string;
      cardId = (await api('/api/v1/cards', { list: listId, name: 'Card' })).json().card._id as string;
    });
    after(async () => {
      for (const one of opened) await one.close();
      await test.dispose();
    });

    it('replays the first answer to a repeat: one card, the same body and Location, marked Idempotent-Replayed', async () => {
      const first = await post(app, '/api/v1/cards', { list: listId, name: 'Once' }, 'create-once');
      assert.equal(first.statusCode, 201, first.body);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      const again = await post(app, '/api/v1/cards', { list: listId, name: 'Once' }, 'create-once');
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.body, first.body);
      assert.equal(again.headers.location, first.headers.location);
      assert.match(String(again.headers['content-type']), /^application\/json/);
      assert.equal(await cardsNamed('Once'), 1);
      // without a key, the same request makes another card, as before
      await app.inject({ method: 'POST', url: '/api/v1/cards', headers: bearer(tenant.apiKey), payload: { list: listId, name: 'Once' } });
      assert.equal(await cardsNamed('Once'), 2);
    });

    it('replays a PATCH: the card changes once', async () => {
      const patch = (key: string) =>
        app.inject({
          method: 'PATCH',
          url: `/api/v1/cards/${cardId}`,
          headers: { ...bearer(tenant.apiKey), 'idempotency-key': key },
          payload: { name: 'Renamed' },
        });
      const first = await patch('rename-1');
      assert.equal(first.statusCode, 200, first.body);
      const again = await patch('rename-1');
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.json().card.__v, first.json().card.__v);
      const row = await test.storage.db.selectFrom('cards').select('version').where('id', '=', cardId).executeTakeFirstOrThrow();
      assert.equal(Number(row.version), first.json().card.__v);
    });

    it('answers 422 to the same key on another request (body or URL), and changes nothing', async () => {
      assert.equal((await post(app, '/api/v1/cards', { list: listId, name: 'Key A' }, 'reused')).statusCode, 201);
      const otherBody = await post(app, '/api/v1/cards', { list: listId, name: 'Key B' }, 'reused');
      assert.equal(otherBody.statusCode, 422, otherBody.body);
      assert.equal(otherBody.json().code, 'idempotency_key_reused');
      const otherUrl = await post(app, `/api/v1/cards?teamId=${tenant.teamId}`, { list: listId, name: 'Key A' }, 'reused');
      assert.equal(otherUrl.statusCode, 422);
      assert.equal(await cardsNamed('Key B'), 0);
      assert.equal(await cardsNamed('Key A'), 1);
    });

    it('keeps a 4xx answer (a repeat gets it again) and scopes keys to their caller', async () => {
      const bad = await post(app, '/api/v1/cards', { list: listId }, 'invalid');
      assert.equal(bad.statusCode, 400);
      const again = await post(app, '/api/v1/cards', { list: listId }, 'invalid');
      assert.equal(again.statusCode, 400);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.json().code, 'validation_failed');

      const other = await bootstrap(app.services, { company: 'Acme', team: 'Core', email: 'second@acme.test', fullName: 'Second' });
      const theirs = await app.inject({
        method: 'POST',
        url: '/api/v1/companies',
        headers: { ...bearer(other.apiKey), 'idempotency-key': 'create-once' },
        payload: { name: 'Theirs' },
      });
      assert.equal(theirs.statusCode, 201, theirs.body);
      assert.equal(theirs.headers['idempotent-replayed'], undefined);
    });

    it('replays an upload: one attachment', async () => {
      const form = multipart({ name: 'Upload once' }, { filename: 'a.txt', contentType: 'text/plain', content: Buffer.from('hello') });
      const upload = () =>
        app.inject({
          method: 'POST',
          url: `/api/v1/cards/${cardId}/attachments`,
          headers: { ...bearer(tenant.apiKey), ...form.headers, 'idempotency-key': 'upload-once' },
          payload: form.payload,
        });
      const first = await upload();
      assert.equal(first.statusCode, 201, first.body);
      const again = await upload();
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.json().attachment._id, first.json().attachment._id);
      const rows = await test.storage.db.selectFrom('attachments').select('id').where('name', '=', 'Upload once').execute();
      assert.equal(rows.length, 1);
    });

    it('refuses a malformed key with a 400', async () => {
      for (const key of ['x'.repeat(256), 'has space']) {
        const res = await post(app, '/api/v1/cards', { list: listId, name: 'Bad key' }, key);
        assert.equal(res.statusCode, 400, key);
        assert.equal(res.json().details[0].field, 'headers.idempotency-key');
      }
      assert.equal(await cardsNamed('Bad key'), 0);
    });

    it('holds across a restart: a new app on the same database replays the answer', async () => {
      const first = await instance();
      const created = await post(first, '/api/v1/cards', { list: listId, name: 'Restart' }, 'restart');
      assert.equal(created.statusCode, 201);
      await first.close();
      const restarted = await instance();
      const again = await post(restarted, '/api/v1/cards', { list: listId, name: 'Restart' }, 'restart');
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.json().card._id, created.json().card._id);
      assert.equal(await cardsNamed('Restart'), 1);
    });

    it('holds across two instances at once: the same request sent to both makes one card', async () => {
      const second = await instance();
      for (let round = 0; round < 5; round++) {
        const name = `Twice ${round}`;
        const answers = await Promise.all([
          post(app, '/api/v1/cards', { list: listId, name }, `both-${round}`),
          post(second, '/api/v1/cards', { list: listId, name }, `both-${round}`),
        ]);
        const statuses = answers.map((a) => a.statusCode).sort();
        assert.ok(statuses[0] === 201 && (statuses[1] === 201 || statuses[1] === 409), statuses.join());
        assert.equal(await cardsNamed(name), 1);
        const replay = await post(second, '/api/v1/cards', { list: listId, name }, `both-${round}`);
        assert.equal(replay.headers['idempotent-replayed'], 'true');
        assert.equal(replay.json().card._id, answers.find((a) => a.headers['idempotent-replayed'] === undefined && a.statusCode === 201)!.json().card._id);
      }
    });

    it('does not keep a 5xx answer: the key is let go and a retry runs again', async () => {
      let faults = 1;
      const faulty = await instance(async (request) => {
        if ((request.body as { name?: string } | undefined)?.name === 'Boom' && faults-- > 0) throw new Error('injected fault');
      });
      const failed = await post(faulty, '/api/v1/cards', { list: listId, name: 'Boom' }, 'boom');
      assert.equal(failed.statusCode, 500, failed.body);
      assert.equal(await findIdempotencyKey(test.storage.db, tenant.userId, 'boom'), undefined, 'the key is let go');
      const retry = await post(faulty, '/api/v1/cards', { list: listId, name: 'Boom' }, 'boom');
      assert.equal(retry.statusCode, 201, retry.body);
      assert.equal(retry.headers['idempotent-replayed'], undefined, 'the retry ran, it was not answered from the key');
      const repeat = await post(faulty, '/api/v1/cards', { list: listId, name: 'Boom' }, 'boom');
      assert.equal(repeat.headers['idempotent-replayed'], 'true');
      assert.equal(repeat.json().card._id, retry.json().card._id);
      assert.equal(await cardsNamed('Boom'), 1);
    });

    it('answers 409 to a repeat while the first still runs (held by the test before its handler), then replays it', async () => {
      let release = () => {};
      let holding = () => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      const held = new Promise<void>((resolve) => (holding = resolve));
      const holdingApp = await instance(async (request) => {
        if ((request.body as { name?: string } | undefined)?.name !== 'Gated' || request.headers['x-hold'] !== 'yes') return;
        holding();
        await released;
      });
      const first = post(holdingApp, '/api/v1/cards', { list: listId, name: 'Gated' }, 'gated', { 'x-hold': 'yes' });
      try {
        // the first has claimed its key and waits in its handler's hook
        await held;
        const repeat = await post(holdingApp, '/api/v1/cards', { list: listId, name: 'Gated' }, 'gated');
        assert.equal(repeat.statusCode, 409, repeat.body);
        assert.equal(repeat.json().code, 'conflict');
        assert.equal(repeat.headers['retry-after'], '1');
      } finally {
        release();
      }
      const answered = await first;
      assert.equal(answered.statusCode, 201, answered.body);
      const replay = await post(holdingApp, '/api/v1/cards', { list: listId, name: 'Gated' }, 'gated');
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.json().card._id, answered.json().card._id);
      assert.equal(await cardsNamed('Gated'), 1);
    });

    // Held inside its transaction on a row lock: PostgreSQL only. On SQLite a request inside its
    // transaction holds the one connection every query waits for, the repeat's claim included, so the
    // repeat cannot answer while the first runs: it waits, then gets the replay (the test above holds
    // the first request outside its transaction instead, which runs on both engines).
    it('answers 409 to a repeat while the first still runs (held on a lock), then replays it', { skip: engine !== 'postgres' }, async () => {
      let release = () => {};
      let holding = () => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      const held = new Promise<void>((resolve) => (holding = resolve));
      // another transaction holds the list's row lock: Create Card waits for it, holding its key
      const holder = test.storage.db.transaction().execute(async (trx) => {
        await trx
          .updateTable('lists')
          .set((eb) => ({ version: eb.ref('version') }))
          .where('id', '=', listId)
          .execute();
        holding();
        await released;
      });
      await held;
      let settled = false;
      const first = post(app, '/api/v1/cards', { list: listId, name: 'Held' }, 'held').finally(() => (settled = true));
      try {
        // bounded: a first request that failed early would never claim the key
        while (!settled && !(await findIdempotencyKey(test.storage.db, tenant.userId, 'held')));
        assert.equal(settled, false, 'the first request is still running');
        const repeat = await post(app, '/api/v1/cards', { list: listId, name: 'Held' }, 'held');
        assert.equal(repeat.statusCode, 409, repeat.body);
        assert.equal(repeat.json().code, 'conflict');
        assert.equal(repeat.headers['retry-after'], '1');
      } finally {
        release();
        await holder;
      }
      const answered = await first;
      assert.equal(answered.statusCode, 201, answered.body);
      const replay = await post(app, '/api/v1/cards', { list: listId, name: 'Held' }, 'held');
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.json().card._id, answered.json().card._id);
      assert.equal(await cardsNamed('Held'), 1);
    });

    /** A key's row as a first request claims it (running), for the repository tests. */
    const keyRow = (key: string, createdAt: string, lockedUntil: string, expiresAt: string) => ({
      user_id: tenant.userId,
      key,
      fingerprint: 'f',
      state: 'running' as const,
      status: null,
      headers: null,
      body: null,
      created_at: createdAt,
      locked_until: lockedUntil,
      expires_at: expiresAt,
    });

    it('a first request that outlived its lease and was taken over neither keeps its answer nor lets the key go', async () => {
      const db = test.storage.db;
      const first = keyRow('overtaken', '2026-01-01T00:00:00.000Z', '2026-01-01T00:05:00.000Z', '2099-01-01T00:00:00.000Z');
      const repeat = keyRow('overtaken', '2026-01-01T00:10:00.000Z', '2026-01-01T00:15:00.000Z', '2099-01-01T00:00:00.000Z');
      assert.equal(await claimIdempotencyKey(db, first), true);
      // the first outlives its lease: the repeat takes the key over and runs
      assert.equal(await reclaimIdempotencyKey(db, repeat, repeat.created_at), true);
      const claimOf = (row: typeof first) => ({ userId: row.user_id, key: row.key, claimedAt: row.created_at });
      // the first ends late, with an answer, or with a 5xx: neither touches the repeat's claim
      await completeIdempotencyKey(db, claimOf(first), { status: 201, headers: '{}', body: 'late first answer' });
      await releaseIdempotencyKey(db, claimOf(first));
      let held = await findIdempotencyKey(db, tenant.userId, 'overtaken');
      assert.equal(held?.state, 'running', 'the repeat still holds the key');
      assert.equal(held?.created_at, repeat.created_at);
      assert.equal(held?.body, null, 'the late first answer was not kept');
      // the repeat's own answer is kept
      await completeIdempotencyKey(db, claimOf(repeat), { status: 201, headers: '{}', body: 'the repeat answer' });
      held = await findIdempotencyKey(db, tenant.userId, 'overtaken');
      assert.equal(held?.state, 'done');
      assert.equal(held?.body, 'the repeat answer');
    });

    it('lets an expired key, or a lost first request past its lease, be claimed again, and prunes expired keys', async () => {
      const db = test.storage.db;
      assert.equal(await claimIdempotencyKey(db, keyRow('old', '2026-01-01T00:00:00.000Z', '2026-01-01T00:05:00.000Z', '2026-01-02T00:00:00.000Z')), true);
      assert.equal(await claimIdempotencyKey(db, keyRow('old', '2026-01-01T00:00:00.000Z', '2026-01-01T00:05:00.000Z', '2026-01-02T00:00:00.000Z')), false);
      // still held (running, in its lease): not claimed again
      assert.equal(
        await reclaimIdempotencyKey(
          db,
          keyRow('old', '2026-01-01T00:01:00.000Z', '2026-01-01T00:06:00.000Z', '2026-01-02T00:01:00.000Z'),
          '2026-01-01T00:01:00.000Z',
        ),
        false,
      );
      // past its lease: the first request is taken for lost
      assert.equal(
        await reclaimIdempotencyKey(
          db,
          keyRow('old', '2026-01-01T00:10:00.000Z', '2026-01-01T00:15:00.000Z', '2026-01-02T00:10:00.000Z'),
          '2026-01-01T00:10:00.000Z',
        ),
        true,
      );
      assert.equal(await claimIdempotencyKey(db, keyRow('kept', '2026-01-01T12:00:00.000Z', '2026-01-01T12:05:00.000Z', '2026-01-02T12:00:00.000Z')), true);
      assert.equal(await pruneIdempotencyKeys(db, '2026-01-02T11:00:00.000Z'), 1);
      assert.equal(await findIdempotencyKey(db, tenant.userId, 'old'), undefined);
      assert.ok(await findIdempotencyKey(db, tenant.userId, 'kept'));
    });
  });
}
