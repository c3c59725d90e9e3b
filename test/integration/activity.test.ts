/**
 * The activity reads: the events of a card, a board or a team, newest first, paged by cursor,
 * filtered by type prefix, and a 404 outside the caller's reach.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Event } from '../../src/schemas/events.ts';
import { type Api, buildTwoCompanyApp, ENGINES, type OtherCompany, type TestApp } from '../support/harness.ts';
import { describeTiers } from '../support/tiers.ts';

for (const engine of ENGINES) {
  describe(`activity reads [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    let other: OtherCompany;
    let boardId: string;
    let cardId: string;
    let otherCardId: string;
    before(async () => {
      ({ t, api, other } = await buildTwoCompanyApp(engine));
      boardId = (await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'B' })).json().board._id;
      const listId = (await api('POST', '/api/v1/lists', { board: boardId, name: 'L' })).json().list._id;
      const labelId = (await api('POST', `/api/v1/boards/${boardId}/labels`, { name: 'Bug', color: '000000000000000000000001' })).json().label._id;
      cardId = (await api('POST', '/api/v1/cards', { list: listId, name: 'v0' })).json().card._id;
      otherCardId = (await api('POST', '/api/v1/cards', { list: listId, name: 'other' })).json().card._id;
      for (let i = 1; i <= 5; i++) assert.equal((await api('PATCH', `/api/v1/cards/${cardId}`, { name: `v${i}` })).statusCode, 200);
      assert.equal((await api('POST', `/v2/cards/${cardId}/labels`, { labels: [labelId] })).statusCode, 200);
      assert.equal((await api('POST', `/api/v1/cards/${cardId}/comments`, { content: 'hi' })).statusCode, 201);
    });
    after(() => t.dispose());

    async function read(url: string): Promise<{ events: Event[]; nextCursor: string | null }> {
      const res = await api('GET', url);
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    }

    /** Every page of `url`, `limit` at a time. */
    async function allPages(url: string, limit: number): Promise<Event[][]> {
      const pages: Event[][] = [];
      let cursor: string | null = null;
      do {
        const page = await read(`${url}${url.includes('?') ? '&' : '?'}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
        pages.push(page.events);
        cursor = page.nextCursor;
      } while (cursor);
      return pages;
    }

    it("answers a card's events newest first, in the public shape", async () => {
      const { events } = await read(`/api/v1/cards/${cardId}/activity`);
      assert.deepEqual(
        events.map((e) => e.type),
        ['comment.created', 'card.labels.toggled', ...Array(5).fill('card.updated'), 'card.created'],
      );
      const [comment, labels, lastUpdate] = events as [Event, Event, Event];
      assert.deepEqual(Object.keys(comment).sort(), ['_id', 'actor', 'board', 'card', 'company', 'createdAt', 'data', 'requestId', 'team', 'type']);
      assert.deepEqual([comment.card, comment.board, comment.team, comment.company], [cardId, boardId, t.tenant.teamId, t.tenant.companyId]);
      assert.equal(comment.actor?.user, t.tenant.userId);
      assert.ok(comment.requestId);
      assert.deepEqual(labels.data.removed, []);
      assert.equal((labels.data.added as string[]).length, 1);
      assert.deepEqual(lastUpdate.data, { fields: ['name'], before: { name: 'v4' }, after: { name: 'v5' } });
    });

    it('pages without repeating or skipping, also while events are recorded between pages', async () => {
      const whole = (await read(`/api/v1/boards/${boardId}/activity?limit=200`)).events;
      const pages = await allPages(`/api/v1/boards/${boardId}/activity`, 3);
      assert.ok(pages.length > 3);
      assert.deepEqual(
        pages.flat().map((e) => e._id),
        whole.map((e) => e._id),
      );

      const first = await read(`/api/v1/boards/${boardId}/activity?limit=2`);
      assert.equal((await api('PATCH', `/api/v1/cards/${otherCardId}`, { name: 'meanwhile' })).statusCode, 200);
      const rest = await allPages(`/api/v1/boards/${boardId}/activity?cursor=${first.nextCursor}`, 200);
      assert.deepEqual(
        [...first.events, ...rest.flat()].map((e) => e._id),
        whole.map((e) => e._id),
        'the newer event is not on later pages',
      );
    });

    it('filters by type: a prefix ending in a dot, or a type and those below it', async () => {
      const cardEvents = (await read(`/api/v1/boards/${boardId}/activity?type=card.&limit=200`)).events;
      assert.ok(cardEvents.length >= 8 && cardEvents.every((e) => e.type.startsWith('card.')));
      assert.deepEqual(
        (await read(`/api/v1/cards/${cardId}/activity?type=card.labels.toggled`)).events.map((e) => e.type),
        ['card.labels.toggled'],
      );
      assert.deepEqual(
        (await read(`/api/v1/cards/${cardId}/activity?type=card.labels`)).events.map((e) => e.type),
        ['card.labels.toggled'],
      );
      assert.deepEqual((await read(`/api/v1/cards/${cardId}/activity?type=card.label`)).events, [], 'a prefix stops at a dot');
      const boardOnly = (await read(`/api/v1/boards/${boardId}/activity?type=list.`)).events;
      assert.deepEqual(
        boardOnly.map((e) => e.type),
        ['list.created'],
      );
    });

    it("answers a team's events, its own (team.created at bootstrap, by no one) and its boards'", async () => {
      const events = (await read(`/api/v1/teams/${t.tenant.teamId}/activity?limit=200`)).events;
      assert.equal(events.at(-1)?.type, 'team.created');
      assert.equal(events.at(-1)?.actor, null);
      assert.ok(events.some((e) => e.type === 'board.created' && e.board === boardId));
    });

    it('is a 404 outside the caller’s reach, and a 400 for a bad cursor or type', async () => {
      for (const url of [`/api/v1/cards/${cardId}/activity`, `/api/v1/boards/${boardId}/activity`, `/api/v1/teams/${t.tenant.teamId}/activity`]) {
        assert.equal((await other.api('GET', url)).statusCode, 404, url);
      }
      assert.equal((await api('GET', `/api/v1/cards/${cardId}/activity?companyId=${other.companyId}`)).statusCode, 404);
      for (const query of ['cursor=nonsense', 'type=Card', 'type=card..x', 'limit=0']) {
        const res = await api('GET', `/api/v1/cards/${cardId}/activity?${query}`);
        assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
      }
    });
  });
}

describeTiers('the activity routes', {
  engines: ['sqlite'],
  given: async (_t, api) => {
    const board = (await api('POST', `/api/v1/boards?teamId=${_t.tenant.teamId}`, { name: 'B' })).json().board;
    const list = (await api('POST', '/api/v1/lists', { board: board._id, name: 'L' })).json().list;
    return { board, card: (await api('POST', '/api/v1/cards', { list: list._id, name: 'C' })).json().card };
  },
  calls: async (api, { board, card }, t) => {
    await api('GET', `/api/v1/cards/${card._id}/activity`);
    await api('GET', `/api/v1/boards/${board._id}/activity`);
    await api('GET', `/api/v1/teams/${t.tenant.teamId}/activity`);
  },
  expected: [
    ['GET /api/v1/cards/:cardId/activity', 'very-low'],
    ['GET /api/v1/boards/:boardId/activity', 'very-low'],
    ['GET /api/v1/teams/:teamId/activity', 'very-low'],
  ],
});
