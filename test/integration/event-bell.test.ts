/**
 * The event bell's announcements (src/events/bell.ts) say which app made them: a commit through an
 * app is announced, by PostgreSQL's NOTIFY or Redis pub/sub, with that app's bell id, the commits of
 * one window (ANNOUNCE_WINDOW_MS) together, and an app's own bell passes over its own announcements
 * (it rang in process as they committed), so each commit rings its readers once. An announcement also says which boards and users the commit concerns,
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
import { readAnnouncement } from '../../src/domain/events/record.ts';
import type { Ring } from '../../src/events/bell.ts';
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

    /**
     * Hears the announcements the transport carries from now on, as another instance would:
     * `until(wanted)` answers the first one, heard already or to come, that `wanted` accepts.
     */
    async function announcements(): Promise<{ until: (wanted: (concerns: Ring, by: string) => boolean) => Promise<string>; stop: () => Promise<unknown> }> {
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
        const { rows } = await sql<{ channel: string }>`select ${sql.raw(EVENTS_CHANNEL_SQL)} as channel`.execute(t.storage.db);
        const listener = new pg.Client({ connectionString: t.url.replace(/[?&]schema=[^&]*/, '') });
        await listener.connect();
        await listener.query(`listen "${rows[0]!.channel}"`);
        listener.on('notification', (message) => hear(message.payload ?? ''));
        stop = () => listener.end();
      }
      // bounded by the suite's own timeout
      const until = (wanted: (concerns: Ring, by: string) => boolean) =>
        new Promise<string>((resolve) => {
          const look = () => {
            const found = heard.find((payload) => {
              const { by, concerns } = readAnnouncement(payload);
              return wanted(concerns, by);
            });
            if (found === undefined) return;
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

    if (!overrides.redisUrl) {
      it("ring for a card's move with the board it went to and the board it left (what its announcement then names)", { timeout: 10_000 }, async () => {
        const api = apiClient(t, t.tenant.apiKey);
        const [from, to] = (await Promise.all(['Left', 'Reached'].map(async (name) => (await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name })).json().board._id as string))) as [string, string];
        const fromList = (await api('POST', '/api/v1/lists', { board: from, name: 'Out' })).json().list._id;
        const toList = (await api('POST', '/api/v1/lists', { board: to, name: 'In' })).json().list._id;
        const card = (await api('POST', '/api/v1/cards', { list: fromList, name: 'Mover' })).json().card._id;
        // the ring of the move's own commit, in process (an announcement gathers a window's commits)
        const rings: Ring[] = [];
        const unsubscribe = t.app.eventBell.subscribe((ring) => rings.push(ring));
        try {
          const moved = await api('PATCH', '/api/v1/cards/move-multi-team', {
            cards: [{ cardId: card, companyId: t.tenant.companyId, teamId: t.tenant.teamId }],
            target: { companyId: t.tenant.companyId, teamId: t.tenant.teamId, list: toList },
          });
          assert.equal(moved.statusCode, 200, moved.body);
          const ofMove = rings.filter((ring) => ring?.boards.has(to));
          assert.deepEqual(ofMove.map((ring) => [...(ring?.boards ?? [])].sort()), [[from, to].sort()]);
        } finally {
          unsubscribe();
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
        assert.ok(['b1', 'b2'].every((board) => concerns.boards.has(board)), [...concerns.boards].join());
        assert.ok(['u1', 'u2'].every((user) => concerns.users.has(user)), [...concerns.users].join());
      } finally {
        await stop();
      }
    });

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
