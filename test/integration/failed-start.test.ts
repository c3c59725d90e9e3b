/**
 * A start that fails after the events plugin registered (a later plugin throws) leaves no
 * connection behind: buildApp closes what the plugins before the failure opened. Counted on the
 * servers themselves: the event bell's LISTEN connection on PostgreSQL (pg_stat_activity), its Redis
 * subscription (PUBSUB NUMSUB) when REDIS_URL is set, on either engine.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import pg from 'pg';
import { buildApp } from '../../src/app.ts';
import type { NotificationSender } from '../../src/domain/notifications/sender.ts';
import { ENGINES, openTestStorage, POSTGRES_URL, REDIS_URL, type TestStorage, testConfig } from '../support/harness.ts';
import { eventually } from '../support/receiver.ts';

/** A sender the notifications plugin (registered after events and webhooks) refuses at registration. */
const NOT_A_SENDER = {} as NotificationSender;

async function postgresListeners(schema: string): Promise<number> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity where query = 'listen "taskboard_events_' || left(md5($1), 16) || '"'`,
      [schema],
    );
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

for (const engine of ENGINES) {
  describe(`a start that fails after the events plugin closes its connections [${engine}]`, () => {
    let test: TestStorage;
    let redis: Redis;
    before(async () => {
      test = await openTestStorage(engine);
      redis = new Redis(REDIS_URL);
    });
    after(async () => {
      redis.disconnect();
      await test.dispose();
    });

    /** Builds the app on its own storage (opened by the app, as the server does) with `config`; it must fail. */
    async function failingStart(overrides: Parameters<typeof testConfig>[0] = {}): Promise<void> {
      const config = testConfig({ databaseUrl: test.url, ...overrides });
      await assert.rejects(buildApp({ config, logger: false, rateLimiter: null, notificationSender: NOT_A_SENDER }), /notificationSender must have a send/);
    }

    it('with Redis: its subscription is gone', async () => {
      const prefix = `tb-failed-start-${randomBytes(4).toString('hex')}:`;
      const channel = `${prefix}events:${createHash('sha256').update(test.storage.description).digest('hex').slice(0, 16)}`;
      const subscribers = async () => Number(((await redis.pubsub('NUMSUB', channel)) as [string, number])[1]);
      // the same app, started: the bell subscribes (what the count below would see if it leaked)
      const config = testConfig({ databaseUrl: test.url, redisUrl: REDIS_URL, redisKeyPrefix: prefix });
      const healthy = await buildApp({ config, logger: false, rateLimiter: null });
      assert.equal(await subscribers(), 1);
      await healthy.close();
      await eventually(subscribers, (n) => n === 0, 10_000, 'the healthy app to unsubscribe');

      await failingStart({ redisUrl: REDIS_URL, redisKeyPrefix: prefix });
      await eventually(subscribers, (n) => n === 0, 10_000, 'no subscription left');
    });

    it('on PostgreSQL: its LISTEN connection is gone', { skip: engine !== 'postgres' }, async () => {
      const schema = new URL(test.url).searchParams.get('schema') as string;
      const healthy = await buildApp({ config: testConfig({ databaseUrl: test.url }), logger: false, rateLimiter: null });
      assert.equal(await postgresListeners(schema), 1);
      await healthy.close();
      await eventually(
        () => postgresListeners(schema),
        (n) => n === 0,
        10_000,
        'the healthy app to stop listening',
      );

      await failingStart();
      await eventually(
        () => postgresListeners(schema),
        (n) => n === 0,
        10_000,
        'no LISTEN connection left',
      );
    });
  });
}
