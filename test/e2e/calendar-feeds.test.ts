/**
 * Calendar feeds through the API on both engines: a person's secret iCalendar URL of their My Tasks
 * or of one board, read without key or cookie and parsed by a maintained iCalendar parser (ical.js):
 * the dated cards the person reaches now, one event each; the token is kept hashed; revoking ends
 * the URL; a board the person no longer reaches, or another company's, is a 404.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import ICAL from 'ical.js';
import { addMember, seedBoard } from '../support/fixtures.ts';
import { type Api, apiClient, buildTestApp, ENGINES, otherCompany, type TestApp } from '../support/harness.ts';

interface FeedEvent {
  uid: string;
  summary: string;
  start: string;
  end: string;
  url: string;
  description: string;
}

/** The events of an iCalendar text, as ical.js reads them. */
function eventsOf(text: string): FeedEvent[] {
  const calendar = new ICAL.Component(ICAL.parse(text));
  assert.equal(calendar.name, 'vcalendar');
  return calendar.getAllSubcomponents('vevent').map((component) => {
    const event = new ICAL.Event(component);
    return {
      uid: event.uid,
      summary: event.summary,
      start: event.startDate.toJSDate().toISOString(),
      end: event.endDate.toJSDate().toISOString(),
      url: String(component.getFirstPropertyValue('url')),
      description: event.description,
    };
  });
}

for (const engine of ENGINES) {
  describe(`calendar feeds [${engine}]`, () => {
    let t: TestApp;
    let owner: Api;
    let ana: { userId: string; api: Api };
    let boardId: string;
    let listId: string;

    before(async () => {
      t = await buildTestApp(engine);
      owner = apiClient(t, t.tenant.apiKey);
      const made = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'ana@acme.test', fullName: 'Ana Lopez' });
      ana = { userId: made.userId, api: apiClient(t, made.apiKey) };
      ({
        boardId,
        listIds: [listId = ''],
      } = await seedBoard(t.services, t.tenant, { lists: 1 }));
    });
    after(() => t.dispose());

    async function card(name: string, fields: Record<string, unknown>, members: string[] = []): Promise<string> {
      const res = await owner('POST', '/api/v1/cards', { list: listId, name, ...fields });
      assert.equal(res.statusCode, 201, res.body);
      const id = res.json().card._id as string;
      if (members.length) assert.equal((await owner('POST', `/v2/cards/${id}/members`, { members })).statusCode, 200);
      return id;
    }
    async function newFeed(api: Api, body: Record<string, unknown> = {}): Promise<{ id: string; url: string }> {
      const res = await api('POST', '/api/v1/calendar-feeds', body);
      assert.equal(res.statusCode, 201, res.body);
      return { id: res.json().calendarFeed._id, url: res.json().url };
    }
    /** Reads a feed as a calendar app does: the URL alone, no key, no cookie. */
    async function read(url: string) {
      const path = new URL(url).pathname;
      return t.app.inject({ method: 'GET', url: path });
    }

    it('a My Tasks feed holds the dated cards one is a member of, one event each, and links into the app', async () => {
      const mine = await card('Ship the release', { startDate: '2031-03-02T09:00:00.000Z', dueDate: '2031-03-04T17:00:00.000Z' }, [ana.userId]);
      const done = await card('Write the notes', { dueDate: '2031-03-01T12:00:00.000Z' }, [ana.userId]);
      assert.equal((await owner('PATCH', `/api/v1/cards/${done}`, { complete: { status: true } })).statusCode, 200);
      await card('Not mine', { dueDate: '2031-03-03T12:00:00.000Z' });
      await card('No date', {}, [ana.userId]);
      const archived = await card('Archived', { dueDate: '2031-03-05T12:00:00.000Z' }, [ana.userId]);
      assert.equal((await owner('PATCH', '/api/v1/cards/archived', { cardIds: [archived], status: true })).statusCode, 200);

      const feed = await newFeed(ana.api);
      assert.match(feed.url, /^http:\/\/[^/]+\/calendar\/[A-Za-z0-9_-]+\.ics$/);
      const res = await read(feed.url);
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['content-type']), /^text\/calendar/);
      const events = eventsOf(res.body);
      assert.deepEqual(
        events.map((event) => [event.uid, event.summary, event.start, event.end]),
        [
          [`${done}@taskboard`, '✓ Write the notes', '2031-03-01T12:00:00.000Z', '2031-03-01T12:00:00.000Z'],
          [`${mine}@taskboard`, 'Ship the release', '2031-03-02T09:00:00.000Z', '2031-03-04T17:00:00.000Z'],
        ],
      );
      assert.equal(new URL(events[1]?.url ?? '').href, new URL(`/boards/${boardId}?card=${mine}`, feed.url).href);
      assert.match(events[1]?.description ?? '', /^Board › /);
    });

    it('a board feed holds every dated card of the board; only its person lists it, and the token is kept hashed', async () => {
      const dated = await card('Plan the offsite', { dueDate: '2031-04-01T08:00:00.000Z' });
      const feed = await newFeed(ana.api, { board: boardId });
      const events = eventsOf((await read(feed.url)).body);
      assert.ok(events.some((event) => event.uid === `${dated}@taskboard`));
      assert.ok(
        events.some((event) => event.summary === 'Not mine'),
        'a board feed is not narrowed to one person',
      );

      const listed = (await ana.api('GET', '/api/v1/calendar-feeds')).json().calendarFeeds as {
        _id: string;
        board: string | null;
        boardName: string | null;
        lastUsedAt: string | null;
      }[];
      const entry = listed.find((item) => item._id === feed.id);
      assert.deepEqual([entry?.board, entry?.boardName], [boardId, 'Board']);
      assert.ok(entry?.lastUsedAt, 'the read is shown');
      assert.ok(!(await owner('GET', '/api/v1/calendar-feeds')).json().calendarFeeds.some((item: { _id: string }) => item._id === feed.id));
      const token = new URL(feed.url).pathname.replace(/^\/calendar\//, '').replace(/\.ics$/, '');
      const stored = await t.services.db.selectFrom('calendar_feeds').selectAll().where('id', '=', feed.id).executeTakeFirstOrThrow();
      assert.notEqual(stored.token_hash, token);
      assert.ok(!JSON.stringify(stored).includes(token));
    });

    it('revoking ends the URL; another person cannot revoke it', async () => {
      const feed = await newFeed(ana.api);
      assert.equal((await owner('DELETE', `/api/v1/calendar-feeds/${feed.id}`)).statusCode, 404);
      assert.equal((await read(feed.url)).statusCode, 200);
      const res = await ana.api('DELETE', `/api/v1/calendar-feeds/${feed.id}`);
      assert.equal(res.statusCode, 200, res.body);
      const gone = await read(feed.url);
      assert.equal(gone.statusCode, 404);
      assert.equal(gone.json().code, 'not_found');
      assert.equal((await read(feed.url.replace(/\.ics$/, ''))).statusCode, 404);
    });

    it('a board its person no longer reaches is a 404, and their My Tasks loses its cards', async () => {
      const bo = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'bo@acme.test', fullName: 'Bo Chen' });
      const boApi = apiClient(t, bo.apiKey);
      await card('Bo’s task', { dueDate: '2031-05-01T08:00:00.000Z' }, [bo.userId]);
      const boardFeed = await newFeed(boApi, { board: boardId });
      const tasksFeed = await newFeed(boApi);
      assert.equal(eventsOf((await read(tasksFeed.url)).body).length, 1);
      assert.equal((await owner('DELETE', `/api/v1/teams/${t.tenant.teamId}/members/${bo.userId}`)).statusCode, 200);
      assert.equal((await read(boardFeed.url)).statusCode, 404);
      const after = await read(tasksFeed.url);
      assert.equal(after.statusCode, 200);
      assert.deepEqual(eventsOf(after.body), []);
    });

    it("another company's board is a 404, and bad input a 400", async () => {
      const other = await otherCompany(t);
      const res = await other.api('POST', '/api/v1/calendar-feeds', { board: boardId });
      assert.equal(res.statusCode, 404, res.body);
      assert.equal((await owner('POST', '/api/v1/calendar-feeds', { board: 'nope' })).statusCode, 400);
      assert.equal((await owner('POST', '/api/v1/calendar-feeds', { list: listId })).statusCode, 400);
      assert.equal((await t.app.inject({ method: 'GET', url: '/calendar/tb_unknown.ics' })).statusCode, 404);
    });
  });
}
