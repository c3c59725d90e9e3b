/**
 * Get Board Card Faces by Dates (docs/decisions/0295): a board's faces in a dates window, by due
 * date, start date or span; the rest of a list from Get List Card Faces given the same window; bad
 * windows 400 in the contract's form; another company's board 404.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BoardWithCardFaces, type CardFace } from '../../src/schemas/card-faces.ts';
import { type Api, buildTwoCompanyApp, ENGINES, type OtherCompany, type TestApp } from '../support/harness.ts';
import { assertSchema } from '../support/schema.ts';

const FROM = '2026-12-01T00:00:00.000Z';
const TO = '2027-01-01T00:00:00.000Z';

for (const engine of ENGINES) {
  describe(`card faces by dates [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    let other: OtherCompany;
    let boardId: string;
    let listIds: string[];
    /** Card ids by name. */
    const ids = new Map<string, string>();

    async function ok(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) {
      const res = await api(method, url, payload);
      assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
      return res.json();
    }
    /** The names of the cards the window read answers, list by list. */
    async function window(query: string): Promise<string[][]> {
      const body = await ok('GET', `/api/v1/boards/${boardId}/card-faces/by-dates?${query}`);
      assertSchema(BoardWithCardFaces, body.board);
      return body.board.lists.map((list: { cards: CardFace[] }) => list.cards.map((card) => card.name));
    }
    const span = (from: string, to: string, by?: string) => `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}${by ? `&by=${by}` : ''}`;

    before(async () => {
      ({ t, api, other } = await buildTwoCompanyApp(engine));
      boardId = (await ok('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Dates' })).board._id;
      listIds = [];
      for (const name of ['To do', 'Doing']) listIds.push((await ok('POST', '/api/v1/lists', { board: boardId, name, position: 'bottom' })).list._id);
      const cards: [string, number, { startDate?: string; dueDate?: string }][] = [
        ['due in', 0, { dueDate: '2026-12-24T17:00:00.000Z' }],
        ['due first instant', 1, { dueDate: FROM }],
        ['due at the end', 0, { dueDate: TO }],
        ['due before', 1, { dueDate: '2026-11-30T23:59:59.999Z' }],
        ['no dates', 0, {}],
        ['starts in', 1, { startDate: '2026-12-05T09:00:00.000Z', dueDate: '2027-02-01T09:00:00.000Z' }],
        ['spans across', 0, { startDate: '2026-11-01T09:00:00.000Z', dueDate: '2027-01-15T09:00:00.000Z' }],
        ['starts only, before', 1, { startDate: '2026-11-20T09:00:00.000Z' }],
      ];
      for (const [name, list, dates] of cards)
        ids.set(name, (await ok('POST', '/api/v1/cards', { list: listIds[list], name, position: 'bottom', ...dates })).card._id);
    });
    after(() => t.dispose());

    it('answers only the cards whose due date falls in the window, list by list, with the board', async () => {
      const body = await ok('GET', `/api/v1/boards/${boardId}/card-faces/by-dates?${span(FROM, TO)}`);
      assert.equal(body.board._id, boardId);
      assert.equal(body.board.name, 'Dates');
      assert.deepEqual(
        body.board.lists.map((list: { _id: string; nextCursor: string | null }) => [list._id, list.nextCursor]),
        listIds.map((id) => [id, null]),
      );
      assert.deepEqual(await window(span(FROM, TO)), [['due in'], ['due first instant']]);
      // the same with by=due said, and with a window given in another offset
      assert.deepEqual(await window(span(FROM, TO, 'due')), [['due in'], ['due first instant']]);
      assert.deepEqual(await window(span('2026-12-01T01:00:00+01:00', '2027-01-01T01:00:00+01:00')), [['due in'], ['due first instant']]);
    });

    it('reads by start date, and by span (any day from start to due)', async () => {
      assert.deepEqual(await window(span(FROM, TO, 'start')), [[], ['starts in']]);
      assert.deepEqual(await window(span(FROM, TO, 'span')), [
        ['due in', 'spans across'],
        ['due first instant', 'starts in'],
      ]);
      // a card with only a start date is a point: in a window of its day, not after it
      assert.deepEqual(await window(span('2026-11-20T00:00:00.000Z', '2026-11-21T00:00:00.000Z', 'span')), [['spans across'], ['starts only, before']]);
    });

    it('pages each list by `limit`, continued by Get List Card Faces given the same window', async () => {
      const [first] = listIds as [string];
      for (let n = 0; n < 3; n++)
        await ok('POST', '/api/v1/cards', { list: first, name: `more ${n}`, position: 'bottom', dueDate: '2026-12-10T10:00:00.000Z' });
      const body = await ok('GET', `/api/v1/boards/${boardId}/card-faces/by-dates?${span(FROM, TO)}&limit=2`);
      const list = body.board.lists[0];
      assert.deepEqual(
        list.cards.map((card: CardFace) => card.name),
        ['due in', 'more 0'],
      );
      assert.equal(typeof list.nextCursor, 'string');
      const rest = await ok('GET', `/api/v1/lists/${first}/card-faces?${span(FROM, TO)}&cursor=${encodeURIComponent(list.nextCursor)}`);
      assert.deepEqual(
        rest.cards.map((card: CardFace) => card.name),
        ['more 1', 'more 2'],
      );
      assert.equal(rest.nextCursor, null);
      // without a window, the list reads as before: every card
      const all = await ok('GET', `/api/v1/lists/${first}/card-faces`);
      assert.equal(all.cards.length, 7);
    });

    it('shows a card once its date moves into the window, and drops an archived one', async () => {
      const before = ids.get('due before') as string;
      await ok('PATCH', `/api/v1/cards/${before}`, { dueDate: '2026-12-02T10:00:00.000Z' });
      assert.ok((await window(span(FROM, TO)))[1]?.includes('due before'));
      await ok('PATCH', `/api/v1/cards/${before}/archive`);
      assert.ok(!(await window(span(FROM, TO)))[1]?.includes('due before'));
      await ok('PATCH', `/api/v1/cards/${before}/unarchive`);
      await ok('PATCH', `/api/v1/cards/${before}`, { dueDate: '2026-11-30T23:59:59.999Z' });
    });

    it('refuses a bad window with 400 naming the field, in the contract form', async () => {
      const url = `/api/v1/boards/${boardId}/card-faces/by-dates`;
      const cases: [string, string][] = [
        ['', 'from'],
        [`from=${FROM}`, 'to'],
        [`${span(TO, FROM)}`, 'to'],
        [`${span(FROM, FROM)}`, 'to'],
        [`from=yesterday&to=${TO}`, 'from'],
        [`${span(FROM, TO, 'created')}`, 'by'],
        [`${span(FROM, TO)}&limit=500`, 'limit'],
        [`${span(FROM, TO)}&colour=red`, 'colour'],
      ];
      for (const [query, field] of cases) {
        const res = await api('GET', `${url}?${query}`);
        assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
        const body = res.json();
        assert.equal(body.code, 'validation_failed', query);
        assert.equal(typeof body.requestId, 'string');
        assert.ok(
          (body.details as { field: string }[]).some((detail) => detail.field.includes(field)),
          `${query}: details name ${field}: ${JSON.stringify(body.details)}`,
        );
      }
      // the list read's window: both ends or none
      const list = await api('GET', `/api/v1/lists/${listIds[0]}/card-faces?from=${encodeURIComponent(FROM)}`);
      assert.equal(list.statusCode, 400, list.body);
      assert.equal(list.json().code, 'validation_failed');
    });

    it("is 404 for another company's board or list, and for a scope that does not match", async () => {
      for (const url of [`/api/v1/boards/${boardId}/card-faces/by-dates?${span(FROM, TO)}`, `/api/v1/lists/${listIds[0]}/card-faces?${span(FROM, TO)}`]) {
        const res = await other.api('GET', url);
        assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
        assert.equal(res.json().code, 'not_found');
        const scoped = await api('GET', `${url}&companyId=${other.companyId}`);
        assert.equal(scoped.statusCode, 404, `${url} scoped: ${scoped.body}`);
      }
      const missing = await api('GET', `/api/v1/boards/${'0'.repeat(24)}/card-faces/by-dates?${span(FROM, TO)}`);
      assert.equal(missing.statusCode, 404, missing.body);
    });
  });
}
