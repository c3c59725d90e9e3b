/**
 * The live stream of a board (GET /api/v1/boards/:boardId/events) over real HTTP, on both engines:
 * live events, a reconnect with Last-Event-ID that replays exactly what was missed, heartbeats,
 * the 404 rule, the tier, and disconnection on lost reach (closing the server: board-stream-instances).
 */
import assert from 'node:assert/strict';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { authenticate } from '../../src/domain/account/service.ts';
import { openBoardStream } from '../../src/domain/events/board-stream.ts';
import { addMember } from '../support/fixtures.ts';
import { type Api, apiClient, bearer, buildTestApp, ENGINES, otherCompany, recordingLimiter, type TestApp, testConfig } from '../support/harness.ts';
import { eventsOf, openSse } from '../support/sse.ts';

const HEARTBEAT_MS = 50;

for (const engine of ENGINES) {
  describe(`live board stream [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    let base: string;
    let boardId: string;
    let cardId: string;
    const limiter = recordingLimiter();

    before(async () => {
      // A request timeout shorter than the stream's life: it bounds receiving a request, not answering it.
      t = await buildTestApp(engine, {
        config: { stream: { ...testConfig().stream, heartbeatMs: HEARTBEAT_MS }, http: { ...testConfig().http, requestTimeoutMs: 200, headersTimeoutMs: 100 } },
        rateLimiter: limiter,
      });
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      api = apiClient(t, t.tenant.apiKey);
      boardId = (await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Streamed' })).json().board._id;
      const listId = (await api('POST', '/api/v1/lists', { board: boardId, name: 'Todo' })).json().list._id;
      cardId = (await api('POST', '/api/v1/cards', { list: listId, name: 'Card' })).json().card._id;
    });
    after(() => t.dispose());

    const rename = async (name: string) => {
      const res = await api('PATCH', `/api/v1/cards/${cardId}`, { name });
      assert.equal(res.statusCode, 200, res.body);
    };

    it('sends events live, and after a reconnect with Last-Event-ID exactly the missed ones, in order', async () => {
      const first = await openSse(base, `/api/v1/boards/${boardId}/events`, bearer(t.tenant.apiKey));
      assert.equal(first.status, 200, first.body);
      await rename('one');
      await rename('two');
      // Nothing of the setup, which committed before the stream opened (on PostgreSQL other test
      // files' transactions may hold it back in the feed until after that: see the next test).
      await first.until((s) => s.events.length >= 2, 'two live events');
      const live = eventsOf(first);
      assert.deepEqual(
        live.map((e) => [e.type, e.card, e.board]),
        [
          ['card.updated', cardId, boardId],
          ['card.updated', cardId, boardId],
        ],
      );
      assert.deepEqual(
        first.events.map((e) => e.id),
        eventsOf(first).map((e) => e._id),
        'the SSE id is the event _id',
      );
      first.close();
      await first.ended;

      for (const name of ['three', 'four', 'five']) await rename(name);
      const again = await openSse(base, `/api/v1/boards/${boardId}/events`, { ...bearer(t.tenant.apiKey), 'last-event-id': live[1]!._id });
      assert.equal(again.status, 200, again.body);
      await again.until((s) => s.events.length >= 3, 'the three missed events');
      await rename('six');
      await again.until((s) => s.events.length >= 4, 'the next live event');
      const missed = eventsOf(again);
      assert.equal(new Set(missed.map((e) => e._id)).size, 4, 'each event once');
      assert.ok(!missed.some((e) => live.some((l) => l._id === e._id)), 'nothing seen before is sent again');

      // The record's own order is the order sent.
      const activity = await t.storage.db.selectFrom('events').select(['id']).where('board_id', '=', boardId).orderBy('seq').execute();
      const after = activity.findIndex((row) => row.id === live[1]!._id) + 1;
      assert.ok(after > 0, 'the last event seen is in the record');
      assert.deepEqual(
        missed.map((e) => e._id),
        activity.slice(after, after + 4).map((row) => row.id),
      );
      again.close();
    });

    if (engine === 'postgres') {
      it('starts from now while an older transaction holds the feed back: what committed before it opened never arrives', async () => {
        // a transaction with an id, still running: the feed holds back every event committed after it began
        const older = new pg.Client({ connectionString: t.url.replace(/[?&]schema=[^&]*/, '') });
        await older.connect();
        try {
          await older.query('begin');
          await older.query('select pg_current_xact_id()');
          await rename('before the stream');
          const stream = await openSse(base, `/api/v1/boards/${boardId}/events`, bearer(t.tenant.apiKey));
          try {
            assert.equal(stream.status, 200, stream.body);
            await older.query('rollback');
            await rename('after the stream');
            const recorded = await t.storage.db
              .selectFrom('events')
              .select('id')
              .where('card_id', '=', cardId)
              .where('type', '=', 'card.updated')
              .orderBy('seq', 'desc')
              .limit(2)
              .execute();
            const [after, before] = recorded.map((row) => row.id);
            await stream.until((s) => eventsOf(s).some((e) => e._id === after), 'the change made after it opened');
            assert.ok(before, 'the change made before it opened is recorded');
            assert.deepEqual(
              eventsOf(stream).map((e) => e._id),
              [after],
            );
          } finally {
            stream.close();
          }
        } finally {
          await older.end();
        }
      });
    }

    it('counts once against the very-low tier, however long it stays open', async () => {
      const from = limiter.seen.length;
      const stream = await openSse(base, `/api/v1/boards/${boardId}/events`, bearer(t.tenant.apiKey));
      await stream.until((s) => s.comments.length >= 3, 'three heartbeats');
      stream.close();
      await stream.ended;
      const counted = limiter.seen.slice(from).filter((r) => r.route.endsWith('/events'));
      assert.deepEqual(
        counted.map((r) => [r.route, r.tier]),
        [['GET /api/v1/boards/:boardId/events', 'very-low']],
      );
    });

    it('drops a client that falls too far behind, instead of keeping what it does not read', async () => {
      const caller = await authenticate(t.services, t.tenant.apiKey);
      const stream = await openBoardStream(t.services, caller, t.tenant.apiKey, boardId, undefined);
      const unsubscribe = t.app.eventBell.subscribe(() => stream.wake());
      const sent: string[] = [];
      let ended = '';
      const over = new Promise<void>((resolve) =>
        stream.start({
          // The sink's buffer takes one event, then is full.
          send: (event) => sent.length < 1 && Boolean(sent.push(event._id)),
          end: (reason) => {
            ended = reason;
            resolve();
          },
        }),
      );
      await rename('behind 1');
      await rename('behind 2');
      await over;
      assert.equal(ended, 'the client fell too far behind');
      assert.equal(sent.length, 1);
      await rename('behind 3');
      assert.equal(sent.length, 1, 'an ended stream sends nothing more');
      unsubscribe();
    });

    it('cuts, over HTTP, a client that stops reading once what waits for it passes STREAM_BUFFER_BYTES', async () => {
      const bufferBytes = 64 * 1024;
      const small = await buildTestApp(engine, { config: { stream: { ...testConfig().stream, heartbeatMs: 60_000, bufferBytes } } });
      let socket: Socket | undefined;
      try {
        await small.app.listen({ host: '127.0.0.1', port: 0 });
        const smallApi = apiClient(small, small.tenant.apiKey);
        const board = (await smallApi('POST', `/api/v1/boards?teamId=${small.tenant.teamId}`, { name: 'Slow reader' })).json().board._id as string;
        const list = (await smallApi('POST', '/api/v1/lists', { board, name: 'Todo' })).json().list._id as string;
        const card = (await smallApi('POST', '/api/v1/cards', { list, name: 'Card' })).json().card._id as string;
        // a raw client: it reads the answer's head, then stops reading (its socket paused)
        const client = connect((small.app.server.address() as AddressInfo).port, '127.0.0.1');
        socket = client;
        const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
        client.on('error', () => {});
        await new Promise<void>((resolve) => {
          let head = '';
          const onData = (chunk: Buffer) => {
            head += chunk.toString('latin1');
            if (!head.includes('\r\n\r\n')) return;
            client.off('data', onData);
            client.pause();
            assert.match(head, /^HTTP\/1\.1 200 /);
            resolve();
          };
          client.on('data', onData);
          client.write(
            `GET /api/v1/boards/${board}/events HTTP/1.1\r\nHost: test\r\nAccept: text/event-stream\r\nAuthorization: Bearer ${small.tenant.apiKey}\r\n\r\n`,
          );
        });
        assert.equal(small.app.liveStreams.size, 1);
        // each change's event carries the description before and after: ~32 KB; bounded at 32 MB in all
        let changes = 0;
        while (small.app.liveStreams.size > 0 && changes < 1000) {
          const res = await smallApi('PATCH', `/api/v1/cards/${card}`, { description: (changes % 2 ? 'a' : 'b').repeat(16_384) });
          assert.equal(res.statusCode, 200, res.body);
          changes++;
        }
        assert.equal(small.app.liveStreams.size, 0, `the stream still held its client after ${changes} changes`);
        // the connection is gone, not left open: reading again meets its end
        client.resume();
        await closed;
        assert.ok(changes > 2, "the kernel buffers took the first changes before the stream's own bound was reached");
      } finally {
        socket?.destroy();
        await small.dispose();
      }
    });

    it("answers 406 in the contract's form to a client that takes no event stream", async () => {
      for (const url of [`/api/v1/boards/${boardId}/events`, '/api/v1/notifications/stream']) {
        const res = await t.app.inject({ method: 'GET', url, headers: { ...bearer(t.tenant.apiKey), accept: 'application/json' } });
        assert.equal(res.statusCode, 406, `${url}: ${res.body}`);
        assert.deepEqual(Object.keys(res.json()).sort(), ['code', 'message', 'requestId'], url);
        assert.equal(res.json().code, 'not_acceptable', url);
        assert.match(res.json().message, /text\/event-stream/, url);
      }
    });

    it('answers 400 for a Last-Event-ID the record does not hold', async () => {
      const stream = await openSse(base, `/api/v1/boards/${boardId}/events`, { ...bearer(t.tenant.apiKey), 'last-event-id': 'nope' });
      assert.equal(stream.status, 400);
      assert.match(stream.body, /Last-Event-ID/);
    });

    it("answers a Last-Event-ID of another company's event, or of a team the caller is not in, exactly as an unknown one", async () => {
      // an event of another company, and one of a team of this company that Mia, a member of the board's team only, is not in
      const other = await otherCompany(t);
      const theirBoard = (await other.api('POST', `/api/v1/boards?teamId=${other.teamId}`, { name: 'Theirs' })).json().board._id;
      const team = (await api('POST', `/api/v1/teams?companyId=${t.tenant.companyId}`, { name: `Apart ${engine}` })).json().team._id;
      const apartBoard = (await api('POST', `/api/v1/boards?teamId=${team}`, { name: 'Apart' })).json().board._id;
      const eventOf = async (board: string) =>
        (await t.services.db.selectFrom('events').select('id').where('board_id', '=', board).where('type', '=', 'board.created').executeTakeFirstOrThrow()).id;
      const mia = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: `mia-${engine}@acme.test` });
      const cases: [string, string, string][] = [
        [t.tenant.apiKey, await eventOf(theirBoard), "another company's event"],
        [mia.apiKey, await eventOf(apartBoard), 'an event of a team the caller is not in'],
      ];
      const answer = (body: string) => {
        const { requestId: _, ...rest } = JSON.parse(body) as Record<string, unknown>;
        return rest;
      };
      for (const path of [`/api/v1/boards/${boardId}/events`, '/api/v1/notifications/stream']) {
        for (const [key, eventId, what] of cases) {
          const unknown = await openSse(base, path, { ...bearer(key), 'last-event-id': 'nope' });
          assert.equal(unknown.status, 400, unknown.body);
          const outside = await openSse(base, path, { ...bearer(key), 'last-event-id': eventId });
          try {
            assert.equal(outside.status, 400, `${path}, ${what}: ${outside.status}`);
            assert.deepEqual(answer(outside.body), answer(unknown.body), `${path}, ${what}`);
          } finally {
            outside.close();
          }
        }
      }
      // the owner reaches the other team's event: it resumes from there
      const resumed = await openSse(base, `/api/v1/boards/${boardId}/events`, { ...bearer(t.tenant.apiKey), 'last-event-id': await eventOf(apartBoard) });
      assert.equal(resumed.status, 200, resumed.body);
      resumed.close();
    });

    it('sends heartbeats, and outlives the request timeout', async () => {
      const stream = await openSse(base, `/api/v1/boards/${boardId}/events`, bearer(t.tenant.apiKey));
      // 10 heartbeats of 50 ms pass the 200 ms request timeout.
      await stream.until((s) => s.comments.length >= 10, 'ten heartbeats');
      assert.ok(stream.comments.every((c) => c.trim() === 'heartbeat'));
      await rename('after heartbeats');
      await stream.until((s) => s.events.length >= 1, 'an event after the heartbeats');
      stream.close();
    });

    it("answers 404 to another company's caller, and 401 without a key", async () => {
      const other = await otherCompany(t);
      const stream = await openSse(base, `/api/v1/boards/${boardId}/events`, bearer(other.apiKey));
      assert.equal(stream.status, 404, stream.body);
      const anonymous = await openSse(base, `/api/v1/boards/${boardId}/events`, {});
      assert.equal(anonymous.status, 401);
    });

    it('shows a card moved to another board on both: leaving the old one, arriving on the new one', async () => {
      const team = (await api('POST', `/api/v1/teams?companyId=${t.tenant.companyId}`, { name: `Elsewhere ${engine}` })).json().team._id;
      const otherBoard = (await api('POST', `/api/v1/boards?teamId=${team}`, { name: 'Destination' })).json().board._id;
      const otherList = (await api('POST', '/api/v1/lists', { board: otherBoard, name: 'In' })).json().list._id;
      const oldList = (await api('POST', '/api/v1/lists', { board: boardId, name: 'Out' })).json().list._id;
      const mover = (await api('POST', '/api/v1/cards', { list: oldList, name: 'Mover' })).json().card._id;
      const leaving = await openSse(base, `/api/v1/boards/${boardId}/events`, bearer(t.tenant.apiKey));
      const arriving = await openSse(base, `/api/v1/boards/${otherBoard}/events`, bearer(t.tenant.apiKey));
      try {
        const moved = await api('PATCH', '/api/v1/cards/move-multi-team', {
          cards: [{ cardId: mover, companyId: t.tenant.companyId, teamId: t.tenant.teamId }],
          target: { companyId: t.tenant.companyId, teamId: team, list: otherList },
        });
        assert.equal(moved.statusCode, 200, moved.body);
        // then a change of the card where it is now, and one on the old board (a marker: the old stream is read up to it)
        assert.equal((await api('PATCH', `/api/v1/cards/${mover}`, { name: 'Arrived' })).statusCode, 200);
        const marker = await api('POST', '/api/v1/lists', { board: boardId, name: 'Marker' });
        assert.equal(marker.statusCode, 201);
        const markerId = marker.json().list._id as string;
        await arriving.until((s) => eventsOf(s).some((e) => e.type === 'card.updated' && e.card === mover), 'the move and the change on the new board');
        await leaving.until((s) => eventsOf(s).some((e: any) => e.type === 'list.created' && e.data?.list === markerId), 'the marker on the old board');
        // each stream shows what committed after it opened: the move on, nothing of the setup
        const onNew = eventsOf(arriving).map((e: any) => [e.type, e.card, e.board, e.data?.from?.board, e.data?.to?.board]);
        assert.deepEqual(onNew, [
          ['card.moved', mover, otherBoard, boardId, otherBoard],
          ['card.updated', mover, otherBoard, undefined, undefined],
        ]);
        const onOld = eventsOf(leaving).map((e: any) => [e.type, e.card, e.data?.from?.board, e.data?.to?.board]);
        assert.deepEqual(
          onOld,
          [
            ['card.moved', mover, boardId, otherBoard],
            ['list.created', null, undefined, undefined],
          ],
          'the old board sees the card leave, and nothing of it afterwards',
        );
      } finally {
        leaving.close();
        arriving.close();
      }
    });

    it("streams a user's own notifications, and no one else's (GET /api/v1/notifications/stream)", async () => {
      const ann = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: `ann-${engine}@acme.test` });
      const bob = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: `bob-${engine}@acme.test` });
      const listId = (await api('POST', '/api/v1/lists', { board: boardId, name: 'Told' })).json().list._id;
      const card = async (name: string) => (await api('POST', '/api/v1/cards', { list: listId, name })).json().card._id as string;
      const mine = await openSse(base, '/api/v1/notifications/stream', bearer(ann.apiKey));
      assert.equal(mine.status, 200, mine.body);
      let eventIds: string[] = [];
      try {
        // bob's notification first, then ann's two: her stream shows hers alone
        assert.equal((await api('POST', `/v2/cards/${await card('For Bob')}/members`, { members: [bob.userId] })).statusCode, 200);
        assert.equal((await api('POST', `/v2/cards/${await card('For Ann')}/members`, { members: [ann.userId] })).statusCode, 200);
        assert.equal((await api('POST', `/v2/cards/${await card('For both')}/members`, { members: [ann.userId, bob.userId] })).statusCode, 200);
        await mine.until((s) => s.events.length >= 2, "ann's two notifications");
        const got = eventsOf(mine) as unknown as Array<{ type: string; data: { notification: { _id: string; user: string } } }>;
        assert.deepEqual(
          got.map((e) => [e.type, e.data.notification.user]),
          [
            ['notification.created', ann.userId],
            ['notification.created', ann.userId],
          ],
        );
        // the same notifications the API lists for her, oldest first on the stream
        const listed = (await apiClient(t, ann.apiKey)('GET', '/api/v1/notifications')).json().notifications as Array<{ _id: string }>;
        assert.deepEqual(
          got.map((e) => e.data.notification._id),
          listed.map((n) => n._id).reverse(),
        );
        eventIds = eventsOf(mine).map((e) => e._id);
      } finally {
        mine.close();
      }
      // a reconnect with Last-Event-ID gets exactly what followed that event: her second notification
      const resumed = await openSse(base, '/api/v1/notifications/stream', { ...bearer(ann.apiKey), 'last-event-id': eventIds[0] as string });
      try {
        assert.equal(resumed.status, 200, resumed.body);
        await resumed.until((s) => s.events.length >= 1, 'the notification after Last-Event-ID');
        assert.deepEqual(
          eventsOf(resumed).map((e) => e._id),
          [eventIds[1]],
        );
      } finally {
        resumed.close();
      }
      assert.equal((await openSse(base, '/api/v1/notifications/stream', { ...bearer(ann.apiKey), 'last-event-id': 'nope' })).status, 400);
      assert.equal((await openSse(base, '/api/v1/notifications/stream', {})).status, 401);
      // a revoked key ends it
      const again = await openSse(base, '/api/v1/notifications/stream', bearer(ann.apiKey));
      assert.equal(again.status, 200, again.body);
      const annApi = apiClient(t, ann.apiKey);
      const keyId = (await annApi('GET', '/api/v1/api-keys')).json().apiKeys[0]._id;
      assert.equal((await annApi('DELETE', `/api/v1/api-keys/${keyId}`)).statusCode, 200);
      await again.ended;
    });

    it('disconnects a member removed from the team, and a revoked key', async () => {
      const member = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: `m-${engine}@acme.test` });
      const removed = await openSse(base, `/api/v1/boards/${boardId}/events`, bearer(member.apiKey));
      assert.equal(removed.status, 200, removed.body);
      const res = await api('DELETE', `/api/v1/teams/${t.tenant.teamId}/members/${member.userId}`);
      assert.equal(res.statusCode, 200, res.body);
      await removed.ended;

      const holder = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: `k-${engine}@acme.test` });
      const revoked = await openSse(base, `/api/v1/boards/${boardId}/events`, bearer(holder.apiKey));
      assert.equal(revoked.status, 200, revoked.body);
      const keys = await apiClient(t, holder.apiKey)('GET', '/api/v1/api-keys');
      const keyId = keys.json().apiKeys[0]._id;
      assert.equal((await apiClient(t, holder.apiKey)('DELETE', `/api/v1/api-keys/${keyId}`)).statusCode, 200);
      await revoked.ended;
    });
  });
}
