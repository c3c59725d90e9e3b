import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Notification } from '../../src/schemas/notifications.ts';
import { addMember, seedBoard } from '../support/fixtures.ts';
import { type Api, apiClient, buildTestApp, buildTwoCompanyApp, ENGINES, type OtherCompany, type TestApp } from '../support/harness.ts';
import { assertDerivedFlagsMatchSources } from '../support/notifications.ts';
import { describeTiers } from '../support/tiers.ts';

async function ok(res: Promise<{ statusCode: number; body: string; json(): any }>, status = 200) {
  const answer = await res;
  assert.equal(answer.statusCode, status, answer.body);
  return answer.json();
}

for (const engine of ENGINES) {
  describe(`notifications: who is told of what, and reading them [${engine}]`, () => {
    let t: TestApp;
    let other: OtherCompany;
    const users: Record<'olive' | 'ann' | 'bob' | 'cid', { id: string; api: Api }> = {} as never;
    let cardId: string;
    let boardId: string;
    let commentId: string;

    const mine = async (who: keyof typeof users, query = '') =>
      (await ok(users[who].api('GET', `/api/v1/notifications${query}`))).notifications as Notification[];
    const summary = (list: Notification[]) => list.map((n) => [n.type, n.actor]);

    before(async () => {
      ({ t, other } = await buildTwoCompanyApp(engine));
      const { companyId, teamId } = t.tenant;
      users.olive = { id: t.tenant.userId, api: apiClient(t, t.tenant.apiKey) };
      for (const name of ['ann', 'bob', 'cid'] as const) {
        const member = await addMember(t.services, { companyId, teamIds: [teamId], email: `${name}@acme.test` });
        users[name] = { id: member.userId, api: apiClient(t, member.apiKey) };
      }
      const seeded = await seedBoard(t.services, t.tenant, { lists: 1 });
      boardId = seeded.boardId;
      cardId = (await ok(users.olive.api('POST', '/api/v1/cards', { list: seeded.listIds[0], name: 'Launch' }), 201)).card._id;
    });
    after(() => t.dispose());

    it('card.assigned: each user added to the card, by whoever added them; nobody for adding themselves or for a removal', async () => {
      await ok(users.olive.api('POST', `/v2/cards/${cardId}/members`, { members: [users.ann.id, users.bob.id, users.olive.id] }));
      await ok(users.ann.api('POST', `/v2/cards/${cardId}/members`, { members: [users.cid.id, users.bob.id] })); // cid added, bob removed
      await ok(users.ann.api('POST', `/v2/cards/${cardId}/members`, { members: [users.bob.id] })); // bob back
      assert.deepEqual(summary(await mine('ann')), [['card.assigned', users.olive.id]]);
      assert.deepEqual(summary(await mine('bob')), [
        ['card.assigned', users.ann.id],
        ['card.assigned', users.olive.id],
      ]);
      assert.deepEqual(summary(await mine('cid')), [['card.assigned', users.ann.id]]);
      assert.deepEqual(await mine('olive'), []);
      const [told] = await mine('cid');
      assert.deepEqual(
        { ...told, _id: undefined, createdAt: undefined },
        {
          _id: undefined,
          type: 'card.assigned',
          user: users.cid.id,
          company: t.tenant.companyId,
          team: t.tenant.teamId,
          card: cardId,
          comment: null,
          discussion: null,
          cheer: null,
          reminder: null,
          actor: users.ann.id,
          readAt: null,
          createdAt: undefined,
          // the list's words (docs/decisions/0251-notifications-in-words.md)
          actorName: 'ann@acme.test',
          board: boardId,
          boardName: 'Board',
          cardName: 'Launch',
          snippet: null,
        },
      );
    });

    it('comment.created: every member of the card but its author; comment.replied: the comment’s author only, never for one’s own reply', async () => {
      commentId = (await ok(users.ann.api('POST', `/api/v1/cards/${cardId}/comments`, { content: 'Ready?' }), 201)).comment._id;
      for (const who of ['olive', 'bob', 'cid'] as const) {
        const [latest] = await mine(who);
        assert.deepEqual([latest?.type, latest?.actor, latest?.comment, latest?.card], ['comment.created', users.ann.id, commentId, cardId], who);
      }
      assert.equal((await mine('ann')).filter((n) => n.type === 'comment.created').length, 0, 'not the author');

      const replyId = (await ok(users.bob.api('POST', `/api/v1/comments/${commentId}/discussions`, { content: 'Yes' }), 201)).discussion._id;
      await ok(users.ann.api('POST', `/api/v1/comments/${commentId}/discussions`, { content: 'Thanks' }), 201);
      const replied = (await mine('ann')).filter((n) => n.type === 'comment.replied');
      assert.deepEqual(
        replied.map((n) => [n.actor, n.comment, n.discussion]),
        [[users.bob.id, commentId, replyId]],
      );
      for (const who of ['olive', 'bob', 'cid'] as const) {
        assert.deepEqual(
          (await mine(who)).filter((n) => n.type === 'comment.replied'),
          [],
          `${who}: a reply is not a comment of the card`,
        );
      }
    });

    it('cheer.received: the maker of the cheered thing, with the cheer; none for cheering one’s own', async () => {
      const cheer = (await ok(users.cid.api('POST', `/api/v1/comments/${commentId}/cheers`, { content: '🎉' }), 201)).cheer;
      const [latest] = await mine('ann');
      assert.deepEqual([latest?.type, latest?.actor, latest?.cheer, latest?.comment], ['cheer.received', users.cid.id, cheer._id, commentId]);
      assert.deepEqual([cheer.isNotified, cheer.notification], [true, latest?._id]);
      const own = (await ok(users.ann.api('POST', `/api/v1/comments/${commentId}/cheers`, { content: '👍' }), 201)).cheer;
      assert.deepEqual([own.isNotified, own.notification], [false, '']);
      assert.equal((await mine('ann')).filter((n) => n.type === 'cheer.received').length, 1);
    });

    it('each notification is also a notification.created event addressed to its user', async () => {
      const rows = await t.services.db.selectFrom('notifications').select(['id', 'user_id']).execute();
      const events = await t.services.db.selectFrom('events').select(['user_id', 'data']).where('type', '=', 'notification.created').execute();
      const fromEvents = events.map((e) => [(JSON.parse(e.data) as { notification: Notification }).notification._id, e.user_id]).sort();
      assert.deepEqual(fromEvents, rows.map((r) => [r.id, r.user_id]).sort());
      await assertDerivedFlagsMatchSources(t.services.db);
    });

    it('pages newest first with a cursor, ?unread=true, read and read-all', async () => {
      const all = await mine('bob');
      assert.ok(all.length >= 3);
      const seen: Notification[] = [];
      let cursor: string | null = null;
      do {
        const page: { notifications: Notification[]; nextCursor: string | null } = await ok(
          users.bob.api('GET', `/api/v1/notifications?limit=1${cursor ? `&cursor=${cursor}` : ''}`),
        );
        assert.ok(page.notifications.length <= 1);
        seen.push(...page.notifications);
        cursor = page.nextCursor;
      } while (cursor);
      assert.deepEqual(seen, all, 'the pages are the whole list, in order');
      const times = all.map((n) => n.createdAt);
      assert.deepEqual(times, [...times].sort().reverse(), 'newest first');

      const first = all[1] as Notification;
      const read = (await ok(users.bob.api('PATCH', `/api/v1/notifications/${first._id}/read`))).notification as Notification;
      assert.ok(read.readAt);
      const again = (await ok(users.bob.api('PATCH', `/api/v1/notifications/${first._id}/read`))).notification as Notification;
      assert.equal(again.readAt, read.readAt, 'reading again keeps the first readAt');
      assert.deepEqual(
        (await mine('bob', '?unread=true')).map((n) => n._id),
        all.filter((n) => n._id !== first._id).map((n) => n._id),
      );

      assert.deepEqual(await ok(users.bob.api('PATCH', '/api/v1/notifications/read-all')), { message: 'Notifications read', updated: all.length - 1 });
      assert.deepEqual(await mine('bob', '?unread=true'), []);
      assert.ok((await mine('bob')).every((n) => n.readAt !== null));
      assert.ok((await mine('cid', '?unread=true')).length > 0, "another user's stay unread");
    });

    it('another user can neither read nor mark them: 404, and nothing changes', async () => {
      const [cids] = await mine('cid', '?unread=true');
      assert.ok(cids);
      for (const api of [users.ann.api, other.api]) {
        const res = await api('PATCH', `/api/v1/notifications/${cids._id}/read`);
        assert.equal(res.statusCode, 404, res.body);
        assert.equal(res.json().code, 'not_found');
      }
      await ok(other.api('PATCH', '/api/v1/notifications/read-all'));
      assert.deepEqual(await ok(other.api('GET', '/api/v1/notifications')), { message: 'Notifications', notifications: [], nextCursor: null });
      assert.equal((await mine('cid', '?unread=true'))[0]?.readAt, null);
      const unknown = await users.cid.api('PATCH', '/api/v1/notifications/0123456789abcdef01234567/read');
      assert.equal(unknown.statusCode, 404);
    });

    it('refuses bad input with 400: a foreign cursor, a bad id, unknown query fields', async () => {
      for (const url of [
        '/api/v1/notifications?cursor=abc',
        '/api/v1/notifications?unread=maybe',
        '/api/v1/notifications?limit=0',
        '/api/v1/notifications?x=1',
      ]) {
        assert.equal((await users.bob.api('GET', url)).statusCode, 400, url);
      }
      assert.equal((await users.bob.api('PATCH', '/api/v1/notifications/nope/read')).statusCode, 400);
    });
  });
}

describeTiers('notification routes', {
  engines: ENGINES,
  given: async (t) => {
    // someone else adds the owner to a card: the owner has a notification to read
    const ann = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'ann@acme.test' });
    const annApi = apiClient(t, ann.apiKey);
    const listId = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0];
    const cardId = (await annApi('POST', '/api/v1/cards', { list: listId, name: 'C' })).json().card._id;
    await annApi('POST', `/v2/cards/${cardId}/members`, { members: [t.tenant.userId] });
  },
  calls: async (api) => {
    const [notification] = (await api('GET', '/api/v1/notifications')).json().notifications;
    await api('PATCH', `/api/v1/notifications/${notification._id}/read`);
    await api('PATCH', '/api/v1/notifications/read-all');
  },
  expected: [
    ['GET /api/v1/notifications', 'very-low'],
    ['PATCH /api/v1/notifications/:notificationId/read', 'low'],
    ['PATCH /api/v1/notifications/read-all', 'low'],
  ],
});

describe('a NotificationSender is handed each committed notification once [sqlite]', () => {
  let t: TestApp;
  const sent: Notification[] = [];
  let arrived: () => void = () => {};
  before(async () => {
    t = await buildTestApp('sqlite', {
      notificationSender: {
        send: async (notification) => {
          sent.push(notification);
          arrived();
        },
      },
    });
  });
  after(() => t.dispose());

  it('delivers what the API lists, and nothing of a refused change', async () => {
    const ann = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'ann@acme.test' });
    const owner = apiClient(t, t.tenant.apiKey);
    const listId = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0];
    const cardId = (await ok(owner('POST', '/api/v1/cards', { list: listId, name: 'C' }), 201)).card._id;
    // refused as a whole (an unknown user): no notification is made, none delivered
    assert.equal((await owner('POST', `/v2/cards/${cardId}/members`, { members: [ann.userId, '0123456789abcdef01234567'] })).statusCode, 400);
    const delivered = new Promise<void>((resolve) => (arrived = resolve));
    await ok(owner('POST', `/v2/cards/${cardId}/members`, { members: [ann.userId] }));
    // waits on the sender being called (the test's own bound ends a wait that never comes)
    await delivered;
    const listed = (await ok(apiClient(t, ann.apiKey)('GET', '/api/v1/notifications'))).notifications as Record<string, unknown>[];
    // the list adds the words that tell each notification (who, which card and board, a snippet)
    const withoutWords = listed.map(({ actorName: _a, board: _b, boardName: _bn, cardName: _c, snippet: _s, ...notification }) => notification);
    assert.deepEqual(sent, withoutWords);
    assert.deepEqual(
      listed.map((n) => [n.actorName, n.cardName, n.boardName]),
      [['Olive Owner', 'C', 'Board']],
    );
  });
});

for (const engine of ENGINES) {
  describe(`a NotificationSender that never answers holds nothing [${engine}]`, () => {
    const METRICS_TOKEN = 'metrics-token-0123456789';

    /** A sender whose first `send` never settles and whose later ones resolve; `called(n)` waits for the n-th call. */
    function hangingSender() {
      const calls: { notification: Notification; signal: AbortSignal }[] = [];
      const waiters: { count: number; resolve: () => void }[] = [];
      return {
        calls,
        called: (count: number) => new Promise<void>((resolve) => (calls.length >= count ? resolve() : waiters.push({ count, resolve }))),
        sender: {
          send(notification: Notification, options: { signal: AbortSignal }) {
            calls.push({ notification, signal: options.signal });
            for (const waiter of waiters.filter((w) => calls.length >= w.count)) waiter.resolve();
            return calls.length === 1 ? new Promise<void>(() => {}) : Promise.resolve();
          },
        },
      };
    }

    /** Makes one notification for a new member (a card of the owner, the member added to it); answers the member's id. */
    async function notifySomeone(t: TestApp, email: string): Promise<string> {
      const member = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email });
      const owner = apiClient(t, t.tenant.apiKey);
      const listId = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0];
      const cardId = (await ok(owner('POST', '/api/v1/cards', { list: listId, name: 'C' }), 201)).card._id;
      await ok(owner('POST', `/v2/cards/${cardId}/members`, { members: [member.userId] }));
      return member.userId;
    }

    it('abandons a send past NOTIFICATION_SEND_TIMEOUT_MS (its signal aborted), counts it, and goes on with the next', { timeout: 60_000 }, async () => {
      const hanging = hangingSender();
      const t = await buildTestApp(engine, {
        notificationSender: hanging.sender,
        config: { notifications: { sendTimeoutMs: 50 }, metrics: { token: METRICS_TOKEN, port: undefined, host: '127.0.0.1' } },
      });
      try {
        const first = await notifySomeone(t, 'ann@acme.test');
        await hanging.called(1);
        const second = await notifySomeone(t, 'bob@acme.test');
        // the second is handed over although the first never answered
        await hanging.called(2);
        assert.deepEqual(
          hanging.calls.map((c) => c.notification.user),
          [first, second],
        );
        assert.equal(hanging.calls[0]!.signal.aborted, true, 'the abandoned send is told to stop');
        assert.match(String((hanging.calls[0]!.signal.reason as Error).message), /timed out after 50 ms/);
        assert.equal(t.app.notificationSends.timedOut, 1);
        const metrics = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
        assert.match(metrics.body, /taskboard_notification_send_failures_total\{reason="timeout"\} 1/);
      } finally {
        await t.dispose();
      }
    });

    it('closes at once while a send hangs within its bound, abandoning it', { timeout: 60_000 }, async () => {
      const hanging = hangingSender();
      // a bound far longer than the test's own timeout: only abandoning the send lets the close finish
      const t = await buildTestApp(engine, { notificationSender: hanging.sender, config: { notifications: { sendTimeoutMs: 600_000 } } });
      await notifySomeone(t, 'ann@acme.test');
      await hanging.called(1);
      await t.dispose();
      assert.equal(hanging.calls[0]!.signal.aborted, true);
      assert.equal(t.app.notificationSends.timedOut, 0);
    });
  });
}
