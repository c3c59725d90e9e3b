/**
 * Who is viewing a board (GET /api/v1/boards/:boardId/events?presence=true) over real HTTP: on both
 * engines on one instance, and across two instances on PostgreSQL, by Redis pub/sub and by
 * LISTEN/NOTIFY. A viewer shows to the others when their stream opens and is gone when it closes;
 * a viewer whose instance stopped refreshing it expires; a stream that did not ask is not counted.
 * The heartbeat is set beyond the tests' time, so only the bell and the refreshes deliver.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type App, buildApp } from '../../src/app.ts';
import type { AppConfig } from '../../src/config.ts';
import { newId } from '../../src/domain/shared/ids.ts';
import { addMember } from '../support/fixtures.ts';
import { apiClient, bearer, buildTestApp, ENGINES, needsPostgres, REDIS_URL, type TestApp, testConfig } from '../support/harness.ts';
import { openSse, type SseStream } from '../support/sse.ts';

const NO_HEARTBEAT_WITHIN_TEST = 600_000;
const REFRESH_MS = 100;

async function listening(app: App): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** The names in the last presence frame the stream received (undefined: none yet). */
function viewing(stream: SseStream): string[] | undefined {
  const frames = stream.events.filter((event) => event.event === 'presence');
  const last = frames.at(-1);
  return last ? (JSON.parse(last.data) as { viewers: Array<{ fullName: string }> }).viewers.map((viewer) => viewer.fullName) : undefined;
}

const sees = (names: string[]) => (stream: SseStream) => JSON.stringify(viewing(stream)) === JSON.stringify(names);

async function setUp(t: TestApp, tag: string) {
  const api = apiClient(t, t.tenant.apiKey);
  const boardId = (await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: `Presence ${tag}` })).json().board._id as string;
  const mia = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: `mia-${tag}@acme.test`, fullName: 'Mia Member' });
  return { boardId, mia };
}

for (const engine of ENGINES) {
  describe(`who is viewing a board [${engine}]`, () => {
    let t: TestApp;
    let base: string;
    let boardId: string;
    let mia: { userId: string; apiKey: string };

    before(async () => {
      const stream = { ...testConfig().stream, heartbeatMs: NO_HEARTBEAT_WITHIN_TEST, presenceRefreshMs: REFRESH_MS };
      t = await buildTestApp(engine, { config: { stream } });
      base = await listening(t.app);
      ({ boardId, mia } = await setUp(t, engine));
    });
    after(() => t.dispose());

    it('shows each viewer once to the others while their stream is open, and not after', { timeout: 20_000 }, async () => {
      const olive = await openSse(base, `/api/v1/boards/${boardId}/events?presence=true`, bearer(t.tenant.apiKey));
      assert.equal(olive.status, 200, olive.body);
      await olive.until(sees(['Olive Owner']), 'Olive sees herself');
      const miaFirst = await openSse(base, `/api/v1/boards/${boardId}/events?presence=true`, bearer(mia.apiKey));
      const miaSecond = await openSse(base, `/api/v1/boards/${boardId}/events?presence=true`, bearer(mia.apiKey));
      await olive.until(sees(['Olive Owner', 'Mia Member']), 'Olive sees Mia join');
      await miaSecond.until(sees(['Olive Owner', 'Mia Member']), 'Mia sees both, herself once');
      miaFirst.close();
      // Mia's other stream still counts her: nothing changes for Olive
      miaSecond.close();
      await olive.until(sees(['Olive Owner']), 'Olive sees Mia leave');
      olive.close();
      await olive.ended;
    });

    it('does not count a stream that did not ask, and sends it no presence', { timeout: 20_000 }, async () => {
      const quiet = await openSse(base, `/api/v1/boards/${boardId}/events`, bearer(mia.apiKey));
      const olive = await openSse(base, `/api/v1/boards/${boardId}/events?presence=true`, bearer(t.tenant.apiKey));
      await olive.until(sees(['Olive Owner']), 'Olive alone');
      // Mia's stream opened first, and Olive's join rang it too: it stayed silent, and it counts nobody
      const rows = await t.services.db.selectFrom('board_viewers').select('user_id').where('board_id', '=', boardId).execute();
      assert.deepEqual(
        rows.map((row) => row.user_id),
        [t.tenant.userId],
      );
      assert.equal(viewing(quiet), undefined);
      assert.equal(quiet.status, 200);
      quiet.close();
      olive.close();
    });

    it('lets a viewer its instance stopped refreshing expire', { timeout: 20_000 }, async () => {
      const olive = await openSse(base, `/api/v1/boards/${boardId}/events?presence=true`, bearer(t.tenant.apiKey));
      await olive.until(sees(['Olive Owner']), 'Olive alone');
      // Mia's row as an instance that stopped would leave it: alive a moment more, then never refreshed
      const now = Date.now();
      await t.services.db
        .insertInto('board_viewers')
        .values({
          id: newId(),
          board_id: boardId,
          user_id: mia.userId,
          joined_at: new Date(now).toISOString(),
          seen_until: new Date(now + 3 * REFRESH_MS).toISOString(),
        })
        .execute();
      await olive.until(sees(['Olive Owner', 'Mia Member']), 'Mia shows at the next refresh');
      await olive.until(sees(['Olive Owner']), 'Mia expires');
      olive.close();
    });
  });
}

const bells: Array<[string, Partial<AppConfig>]> = [
  ['Redis pub/sub', { redisUrl: REDIS_URL, redisKeyPrefix: `test-${randomBytes(4).toString('hex')}:` }],
  ['PostgreSQL LISTEN/NOTIFY', {}],
];

for (const [bell, overrides] of bells) {
  describe(`who is viewing a board, across two instances on PostgreSQL, by ${bell}`, needsPostgres, () => {
    let a: TestApp;
    let b: App;
    let baseA: string;
    let baseB: string;
    let boardId: string;
    let mia: { userId: string; apiKey: string };

    before(async () => {
      // Refreshes far apart too: only the bell can tell of a join or a leave.
      const stream = { ...testConfig().stream, heartbeatMs: NO_HEARTBEAT_WITHIN_TEST, presenceRefreshMs: NO_HEARTBEAT_WITHIN_TEST };
      a = await buildTestApp('postgres', { config: { stream, ...overrides } });
      b = await buildApp({ config: { ...a.config, databaseUrl: a.url }, rateLimiter: null, logger: false });
      await b.ready();
      baseA = await listening(a.app);
      baseB = await listening(b);
      ({ boardId, mia } = await setUp(a, 'instances'));
    });
    after(async () => {
      await b.close();
      await a.dispose();
    });

    it('shows a viewer on B to a viewer on A when they come and when they go', { timeout: 20_000 }, async () => {
      const olive = await openSse(baseA, `/api/v1/boards/${boardId}/events?presence=true`, bearer(a.tenant.apiKey));
      await olive.until(sees(['Olive Owner']), 'Olive alone');
      const joined = performance.now();
      const viaB = await openSse(baseB, `/api/v1/boards/${boardId}/events?presence=true`, bearer(mia.apiKey));
      await olive.until(sees(['Olive Owner', 'Mia Member']), 'Mia, on B, shows on A');
      const joinMs = performance.now() - joined;
      await viaB.until(sees(['Olive Owner', 'Mia Member']), 'Mia, on B, sees Olive');
      const left = performance.now();
      viaB.close();
      await olive.until(sees(['Olive Owner']), 'Mia, gone from B, is gone on A');
      console.log(`# presence across instances by ${bell}: join shown in ${joinMs.toFixed(0)} ms, leave in ${(performance.now() - left).toFixed(0)} ms`);
      olive.close();
    });
  });
}
