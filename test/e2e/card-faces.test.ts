/**
 * Card faces, the compact board reads (docs/decisions/0094): each face equals what the full card
 * record says of the same card, the pages and cursors are Get List Card's, reach is the same (404
 * outside it), and reading a face leaves the card's `seen` alone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BoardWithCardFaces, type CardFace } from '../../src/schemas/card-faces.ts';
import type { Card } from '../../src/schemas/records.ts';
import { seedBoard } from '../support/fixtures.ts';
import { type Api, buildTwoCompanyApp, ENGINES, type OtherCompany, type TestApp } from '../support/harness.ts';
import { assertSchema } from '../support/schema.ts';
import { describeTiers } from '../support/tiers.ts';

/** The face a full card record implies: what the face must say. */
function faceOf(card: Card): CardFace {
  return {
    _id: card._id,
    name: card.name,
    position: card.position,
    cover: card.cover,
    startDate: card.startDate,
    dueDate: card.dueDate,
    complete: { status: card.complete.status },
    archived: { status: card.archived.status },
    isTemplate: card.isTemplate,
    labels: card.labels.map((label) => label._id),
    members: card.members,
    allChecklistItemsCount: card.allChecklistItemsCount,
    commentsCount: card.comments.length,
    attachmentsCount: card.attachments.length,
    customFields: card.customFields,
    hasDescription: card.description !== '',
    board: card.board,
    list: card.list,
    __v: card.__v,
  };
}

for (const engine of ENGINES) {
  describe(`card faces [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    let other: OtherCompany;
    let boardId: string;
    let listIds: string[];

    async function ok(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) {
      const res = await api(method, url, payload);
      assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
      return res.json();
    }
    /** The full record, read as an integrator would (Get List Card does not mark it seen). */
    async function fullCards(listId: string): Promise<Card[]> {
      return (await ok('GET', `/api/v1/lists/${listId}/cards?limit=200`)).cards;
    }

    before(async () => {
      ({ t, api, other } = await buildTwoCompanyApp(engine));
      boardId = (await ok('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Faces' })).board._id;
      const labels = [];
      for (const [name, color] of [
        ['Bug', '000000000000000000000004'],
        ['Idea', '000000000000000000000002'],
      ] as const)
        labels.push((await ok('POST', `/api/v1/boards/${boardId}/labels`, { name, color })).label._id);
      listIds = [];
      for (const name of ['To do', 'Doing']) listIds.push((await ok('POST', '/api/v1/lists', { board: boardId, name, position: 'bottom' })).list._id);
      // cards with every part a face counts, and some with none
      for (let n = 0; n < 7; n++) {
        const card = (
          await ok('POST', '/api/v1/cards', {
            list: listIds[n % 2],
            name: `Card ${n}`,
            position: 'bottom',
            ...(n % 3 === 0 ? { dueDate: '2026-12-24T17:00:00.000Z', startDate: '2026-12-01T09:00:00.000Z', description: 'Some **words**' } : {}),
          })
        ).card;
        if (n % 2 === 0) await ok('POST', `/v2/cards/${card._id}/labels`, { labels: n % 4 === 0 ? [labels[1], labels[0]] : [labels[0]] });
        if (n % 3 !== 2) await ok('POST', `/v2/cards/${card._id}/members`, { members: [t.tenant.userId] });
        if (n % 2 === 1) {
          const checklist = (await ok('POST', `/api/v1/cards/${card._id}/checklists`, { name: 'Steps' })).checklist._id;
          const items = [];
          for (let i = 0; i < 3; i++) items.push((await ok('POST', `/api/v1/checklists/${checklist}/items`, { name: `Step ${i}` })).checklistItem._id);
          await ok('PATCH', `/api/v1/checklist-items/${items[1]}/complete`, { status: true });
          // an item's own attachment is not one of the card's attachments
          await ok('POST', `/api/v1/checklist-items/${items[0]}/attachments`, { url: 'https://example.test/item' });
        }
        for (let c = 0; c < n % 3; c++) await ok('POST', `/api/v1/cards/${card._id}/comments`, { content: `Comment ${c}` });
        if (n % 4 === 1) {
          const kept = (await ok('POST', `/api/v1/cards/${card._id}/attachments`, { url: 'https://example.test/a' })).attachment._id;
          const gone = (await ok('POST', `/api/v1/cards/${card._id}/attachments`, { url: 'https://example.test/b' })).attachment._id;
          await ok('DELETE', `/api/v1/cards/${card._id}/attachments/${gone}`);
          assert.ok(kept);
        }
        if (n === 5) await ok('PATCH', `/api/v1/cards/${card._id}`, { cover: '#61bd4f', complete: { status: true } });
      }
    });
    after(() => t.dispose());

    it('answers each list with the faces of its cards, equal to what their full records say', async () => {
      const body = await ok('GET', `/api/v1/boards/${boardId}/card-faces`);
      assertSchema(BoardWithCardFaces, body.board);
      const full = (await ok('GET', `/api/v1/boards/${boardId}`)).board;
      assert.deepEqual(
        body.board.lists.map((list: { _id: string; name: string }) => [list._id, list.name]),
        full.lists.map((list: { _id: string; name: string }) => [list._id, list.name]),
      );
      for (const [index, list] of body.board.lists.entries()) {
        assert.deepEqual(list.cards, (await fullCards(list._id)).map(faceOf), `faces of ${list.name}`);
        assert.equal(list.nextCursor, null);
        assert.deepEqual({ ...list, cards: undefined }, { ...full.lists[index], cards: undefined });
      }
      // the parts were counted, not all zero
      const faces: CardFace[] = body.board.lists.flatMap((list: { cards: CardFace[] }) => list.cards);
      assert.ok(faces.some((face) => face.allChecklistItemsCount.completed === 1 && face.allChecklistItemsCount.total === 3));
      assert.ok(faces.some((face) => face.commentsCount === 2));
      assert.ok(faces.some((face) => face.attachmentsCount === 1));
      assert.ok(faces.some((face) => face.labels.length === 2));
      assert.ok(faces.some((face) => face.cover === '#61bd4f' && face.complete.status));
    });

    it('pages a list as Get List Card does, and the two share their cursors', async () => {
      const [first] = listIds as [string];
      const all = (await fullCards(first)).map((card) => card._id);
      assert.equal(all.length, 4);
      const board = await ok('GET', `/api/v1/boards/${boardId}/card-faces?limit=3`);
      const list = board.board.lists[0];
      assert.deepEqual(
        list.cards.map((card: CardFace) => card._id),
        all.slice(0, 3),
      );
      assert.equal(typeof list.nextCursor, 'string');
      const rest = await ok('GET', `/api/v1/lists/${first}/card-faces?cursor=${encodeURIComponent(list.nextCursor)}`);
      assert.deepEqual(
        rest.cards.map((card: CardFace) => card._id),
        all.slice(3),
      );
      assert.equal(rest.nextCursor, null);
      // a Get List Card cursor continues a face walk, and the other way round
      const page = await ok('GET', `/api/v1/lists/${first}/cards?limit=2`);
      const faces = await ok('GET', `/api/v1/lists/${first}/card-faces?limit=1&cursor=${encodeURIComponent(page.nextCursor)}`);
      assert.deepEqual(
        faces.cards.map((card: CardFace) => card._id),
        all.slice(2, 3),
      );
      const cards = await ok('GET', `/api/v1/lists/${first}/cards?cursor=${encodeURIComponent(faces.nextCursor)}`);
      assert.deepEqual(
        cards.cards.map((card: Card) => card._id),
        all.slice(3),
      );
      // an archived card leaves the board's faces; the next card takes its place in the first page
      await ok('PATCH', `/api/v1/cards/${all[0]}/archive`);
      const without = await ok('GET', `/api/v1/boards/${boardId}/card-faces?limit=3`);
      assert.deepEqual(
        without.board.lists[0].cards.map((card: CardFace) => card._id),
        all.slice(1),
      );
      assert.equal(without.board.lists[0].nextCursor, null);
      assert.equal(without.board.lists[1].cards.length, 3);
      await ok('PATCH', `/api/v1/cards/${all[0]}/unarchive`);
      const bad = await api('GET', `/api/v1/lists/${first}/card-faces?cursor=nonsense`);
      assert.equal(bad.statusCode, 400, bad.body);
    });

    it("reads one card's face, with its revision as the ETag, without marking it seen", async () => {
      const [card] = await fullCards(listIds[1] as string);
      assert.ok(card);
      const res = await api('GET', `/api/v1/cards/${card._id}/face`);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json().card, faceOf(card));
      assert.match(String(res.headers.etag), new RegExp(`^"${card.__v}\\.`), 'the ETag names the revision');
      const again = (await ok('GET', `/api/v1/lists/${listIds[1]}/cards`)).cards[0];
      assert.deepEqual(again.seen, card.seen, 'not seen by reading its face');
      assert.equal(again.__v, card.__v);
      // an archived card's face says so (a board page then takes it off)
      await ok('PATCH', `/api/v1/cards/${card._id}/archive`);
      assert.equal((await ok('GET', `/api/v1/cards/${card._id}/face`)).card.archived.status, true);
      await ok('PATCH', `/api/v1/cards/${card._id}/unarchive`);
    });

    it("is 404 outside the caller's reach, and for a scope that does not match", async () => {
      const [listId] = listIds as [string];
      const cardId = (await fullCards(listId))[0]?._id;
      for (const url of [`/api/v1/boards/${boardId}/card-faces`, `/api/v1/lists/${listId}/card-faces`, `/api/v1/cards/${cardId}/face`]) {
        const res = await other.api('GET', url);
        assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
        assert.equal(res.json().code, 'not_found');
        const scoped = await api('GET', `${url}?companyId=${other.companyId}`);
        assert.equal(scoped.statusCode, 404, `${url} scoped: ${scoped.body}`);
      }
    });
  });
}

describeTiers('card face reads', {
  engines: ['sqlite'],
  given: (t) => seedBoard(t.services, t.tenant, { lists: 1 }),
  calls: async (api, board) => {
    const card = (await api('POST', '/api/v1/cards', { list: board.listIds[0], name: 'c' })).json().card;
    await api('GET', `/api/v1/boards/${board.boardId}/card-faces`);
    await api('GET', `/api/v1/lists/${board.listIds[0]}/card-faces`);
    await api('GET', `/api/v1/cards/${card._id}/face`);
  },
  expected: [
    ['POST /api/v1/cards', 'medium'],
    ['GET /api/v1/boards/:boardId/card-faces', 'very-low'],
    ['GET /api/v1/lists/:listId/card-faces', 'very-low'],
    ['GET /api/v1/cards/:cardId/face', 'very-low'],
  ],
});
