/**
 * The event bell's announcements (src/events/bell.ts) say which app made them: a commit through an
 * app is announced, by PostgreSQL's NOTIFY or Redis pub/sub, with that app's bell id, the commits of
 * one window (ANNOUNCE_WINDOW_MS) together (an open window is announced as the app closes), and an
 * app's own bell passes over its own announcements (it rang in process as they committed), so each
 * commit rings its readers once. An announcement also says which boards and users the commits
 * concern, so that another instance wakes only the streams they concern (stream-wakes.test.ts,
 * which also checks a move's two boards). That other instances still hear them:
 * board-stream-instances.test.ts.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import pg from 'pg';
import type { AppConfig } from '../../src/config.ts';
import { announcement, type Ring, readAnnouncement } from '../../src/events/bell.ts';
import { EVENTS_CHANNEL_SQL } from '../../src/storage/event-feed.ts';
import { apiClient, buildTestApp, REDIS_URL, type TestApp } from '../support/harness.ts';

/** How long a test waits for an announcement (another instance must hear a commit within 1 s). */
const HEARD_WITHIN_MS = 3000;

/** A connection of the test's own listening on the app's events channel, as another instance's would. */
async function listenOnChannel(app: TestApp): Promise<{ listener: pg.Client; channel: string }> {
  const { rows } = await sql<{ channel: string }>`select ${sql.raw(EVENTS_CHANNEL_SQL)} as channel`.execute(app.storage.db);
  const channel = rows[0]!.channel;
  const listener = new pg.Client({ connectionString: app.url.replace(/[?&]schema=[^&]*/, '') });
  await listener.connect();
  await listener.query(`listen "${channel}"`);
  return { listener, channel };
}

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

    /**
     * Hears the announcements the transport carries from now on, as another instance would:
     * `until(wanted)` answers the first one, heard already or to come, that `wanted` accepts.
     */
    async function announcements(
      app: TestApp = t,
    ): Promise<{ until: (wanted: (concerns: Ring, by: string) => boolean) => Promise<string>; stop: () => Promise<unknown> }> {
      const heard: string[] = [];
      const waiting = new Set<() => void>();
      const hear = (payload: string) => {
        heard.push(payload);
        for (const look of waiting) look();
      };
      let stop: () => Promise<unknown>;
      if (overrides.redisUrl) {
        const subscriber = new Redis(REDIS_URL);
        await subscriber.psubscribe(`${overrides.redisKeyPrefix}events:*`);
        subscriber.on('pmessage', (_pattern, _channel, message: string) => hear(message));
        stop = () => subscriber.quit();
      } else {
        const { listener } = await listenOnChannel(app);
        listener.on('notification', (message) => hear(message.payload ?? ''));
        stop = () => listener.end();
      }
      // bounded, so that a test waiting for nothing fails and still stops its listener
      const until = (wanted: (concerns: Ring, by: string) => boolean) =>
        new Promise<string>((resolve, reject) => {
          const bound = setTimeout(() => {
            waiting.delete(look);
            reject(new Error(`no such announcement within ${HEARD_WITHIN_MS} ms; heard: ${JSON.stringify(heard)}`));
          }, HEARD_WITHIN_MS);
          const look = () => {
            const found = heard.find((payload) => {
              const { by, concerns } = readAnnouncement(payload);
              return wanted(concerns, by);
            });
            if (found === undefined) return;
            clearTimeout(bound);
            waiting.delete(look);
            resolve(found);
          };
          waiting.add(look);
          look();
        });
      return { until, stop };
    }

    it('announce a commit as the app that made it, with what it concerns', { timeout: 10_000 }, async () => {
      const { until, stop } = await announcements();
      try {
        const made = await apiClient(t, t.tenant.apiKey)('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Announced' });
        assert.equal(made.statusCode, 201, made.body);
        const board = made.json().board._id as string;
        const heard = readAnnouncement(await until((concerns) => concerns?.boards.has(board) === true));
        assert.equal(heard.by, t.app.eventBell.id);
      } finally {
        await stop();
      }
    });

    if (overrides.redisUrl) {
      it('leave PostgreSQL announcing nothing when the bell announces by Redis', { timeout: 10_000 }, async () => {
        const { listener, channel } = await listenOnChannel(t);
        try {
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

    it('gather the commits of one window into one announcement', { timeout: 10_000 }, async () => {
      const { until, stop } = await announcements();
      try {
        // three commits rung in one turn, well inside one window (which may hold commits of before)
        t.app.eventBell.ring({ boards: new Set(['b1']), users: new Set() });
        t.app.eventBell.ring({ boards: new Set(['b2', 'b1']), users: new Set(['u1']) });
        t.app.eventBell.ring({ boards: new Set(), users: new Set(['u2']) });
        const { by, concerns } = readAnnouncement(await until((concerns) => concerns?.boards.has('b1') === true));
        assert.equal(by, t.app.eventBell.id);
        assert.ok(concerns, 'it says what it concerns');
        assert.ok(
          ['b1', 'b2'].every((board) => concerns.boards.has(board)),
          [...concerns.boards].join(),
        );
        assert.ok(
          ['u1', 'u2'].every((user) => concerns.users.has(user)),
          [...concerns.users].join(),
        );
      } finally {
        await stop();
      }
    });

    // a longer bound: it builds and migrates an app of its own, which takes seconds on a loaded machine
    it('announce, as the app closes, what its open window gathered', { timeout: 60_000 }, async () => {
      const closing = await buildTestApp('postgres', { config: overrides });
      let disposed = false;
      try {
        const { until, stop } = await announcements(closing);
        try {
          closing.app.eventBell.ring({ boards: new Set(['closing']), users: new Set() });
          await closing.dispose();
          disposed = true;
          const { by } = readAnnouncement(await until((concerns) => concerns?.boards.has('closing') === true));
          assert.equal(by, closing.app.eventBell.id);
        } finally {
          await stop();
        }
      } finally {
        if (!disposed) await closing.dispose();
      }
    });

    if (!overrides.redisUrl) {
      it('send every announcement made before the listening connection closes', { timeout: 10_000 }, async () => {
        const { until, stop } = await announcements();
        const announcer = t.app.storage.listenForCommits?.({ onCommit: () => {}, onError: () => {} });
        try {
          assert.ok(announcer, 'PostgreSQL listens for commits');
          await announcer.started;
          // the second waits behind the first on the one connection as the close begins
          announcer.announce(announcement('closing-announcer', { boards: new Set(['first']), users: new Set() }));
          announcer.announce(announcement('closing-announcer', { boards: new Set(['second']), users: new Set() }));
          await announcer.close();
          for (const board of ['first', 'second']) {
            await until((concerns, by) => by === 'closing-announcer' && concerns?.boards.has(board) === true);
          }
        } finally {
          await announcer?.close();
          await stop();
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
