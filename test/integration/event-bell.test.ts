/**
 * The event bell's announcements (src/events/bell.ts) say which app made them: a commit through an
 * app is announced, by PostgreSQL's NOTIFY or Redis pub/sub, with that app's bell id, and an app's
 * own bell passes over its own announcements (it rang in process as they committed), so each commit
 * rings its readers once. An announcement also says which boards and users the commit concerns,
 * so that another instance wakes only the streams it concerns (stream-wakes.test.ts). That other
 * instances still hear them: board-stream-instances.test.ts.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import pg from 'pg';
import type { AppConfig } from '../../src/config.ts';
import { EVENTS_CHANNEL_SQL } from '../../src/storage/event-feed.ts';
import { apiClient, buildTestApp, REDIS_URL, type TestApp } from '../support/harness.ts';

/** Waits for the first message `subscribe` delivers (bounded: the suite's own timeout ends a wait for nothing). */
function firstMessage(subscribe: (deliver: (payload: string) => void) => void): Promise<string> {
  return new Promise((resolve) => subscribe(resolve));
}

const transports: Array<[string, Partial<AppConfig>]> = [
  ['PostgreSQL NOTIFY', {}],
  ['Redis pub/sub', { redisUrl: REDIS_URL, redisKeyPrefix: `test-${randomBytes(4).toString('hex')}:` }],
];

for (const [transport, overrides] of transports) {
  describe(`the event bell's announcements, by ${transport}`, () => {
    let t: TestApp;

    before(async () => {
      t = await buildTestApp('postgres', { config: overrides });
    });
    after(() => t.dispose());

    it('announce a commit as the app that made it, with what it concerns', { timeout: 10_000 }, async () => {
      let stop: () => Promise<unknown>;
      let heard: Promise<string>;
      if (overrides.redisUrl) {
        const subscriber = new Redis(REDIS_URL);
        await subscriber.psubscribe(`${overrides.redisKeyPrefix}events:*`);
        heard = firstMessage((deliver) => subscriber.on('pmessage', (_pattern, _channel, message: string) => deliver(message)));
        stop = () => subscriber.quit();
      } else {
        const { rows } = await sql<{ channel: string }>`select ${sql.raw(EVENTS_CHANNEL_SQL)} as channel`.execute(t.storage.db);
        const listener = new pg.Client({ connectionString: t.url.replace(/[?&]schema=[^&]*/, '') });
        await listener.connect();
        await listener.query(`listen "${rows[0]!.channel}"`);
        heard = firstMessage((deliver) => listener.on('notification', (message) => deliver(message.payload ?? '')));
        stop = () => listener.end();
      }
      try {
        const made = await apiClient(t, t.tenant.apiKey)('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Announced' });
        assert.equal(made.statusCode, 201, made.body);
        assert.equal(await heard, `${t.app.eventBell.id};${made.json().board._id};`);
      } finally {
        await stop();
      }
    });

    if (!overrides.redisUrl) {
      it("announce a card's move with the board it went to and the board it left", { timeout: 10_000 }, async () => {
        const api = apiClient(t, t.tenant.apiKey);
        const [from, to] = await Promise.all(['Left', 'Reached'].map(async (name) => (await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name })).json().board._id as string));
        const fromList = (await api('POST', '/api/v1/lists', { board: from, name: 'Out' })).json().list._id;
        const toList = (await api('POST', '/api/v1/lists', { board: to, name: 'In' })).json().list._id;
        const card = (await api('POST', '/api/v1/cards', { list: fromList, name: 'Mover' })).json().card._id;
        const { rows } = await sql<{ channel: string }>`select ${sql.raw(EVENTS_CHANNEL_SQL)} as channel`.execute(t.storage.db);
        const listener = new pg.Client({ connectionString: t.url.replace(/[?&]schema=[^&]*/, '') });
        await listener.connect();
        try {
          await listener.query(`listen "${rows[0]!.channel}"`);
          const heard = firstMessage((deliver) => listener.on('notification', (message) => deliver(message.payload ?? '')));
          const moved = await api('PATCH', '/api/v1/cards/move-multi-team', {
            cards: [{ cardId: card, companyId: t.tenant.companyId, teamId: t.tenant.teamId }],
            target: { companyId: t.tenant.companyId, teamId: t.tenant.teamId, list: toList },
          });
          assert.equal(moved.statusCode, 200, moved.body);
          assert.equal(await heard, `${t.app.eventBell.id};${to},${from};`);
        } finally {
          await listener.end();
        }
      });
    }

    if (overrides.redisUrl) {
      it('leave PostgreSQL announcing nothing when the bell announces by Redis', { timeout: 10_000 }, async () => {
        const { rows } = await sql<{ channel: string }>`select ${sql.raw(EVENTS_CHANNEL_SQL)} as channel`.execute(t.storage.db);
        const channel = rows[0]!.channel;
        const listener = new pg.Client({ connectionString: t.url.replace(/[?&]schema=[^&]*/, '') });
        await listener.connect();
        try {
          await listener.query(`listen "${channel}"`);
          const heard: string[] = [];
          const marker = 'marker';
          const markerHeard = firstMessage((deliver) =>
            listener.on('notification', (message) => {
              heard.push(message.payload ?? '');
              if (message.payload === marker) deliver(marker);
            }),
          );
          const made = await apiClient(t, t.tenant.apiKey)('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Not by NOTIFY' });
          assert.equal(made.statusCode, 201, made.body);
          // committed after the board: delivered after any notification of it, on this one listener
          await listener.query('select pg_notify($1, $2)', [channel, marker]);
          await markerHeard;
          assert.deepEqual(heard, [marker]);
        } finally {
          await listener.end();
        }
      });
    }

    it("ring the app's readers for announcements of others and for a reconnection, not for its own", () => {
      let rings = 0;
      const unsubscribe = t.app.eventBell.subscribe(() => rings++);
      try {
        t.app.eventBell.heard(t.app.eventBell.id);
        assert.equal(rings, 0, 'its own: rung in process already');
        t.app.eventBell.heard('another app');
        assert.equal(rings, 1);
        t.app.eventBell.heard();
        assert.equal(rings, 2, 'a reconnection: commits may have been missed');
      } finally {
        unsubscribe();
      }
    });
  });
}
