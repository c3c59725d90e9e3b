/**
 * The whole life of every object (issue 15): rename, archive, delete, leave, change roles, on both
 * engines, through the API: success, the 404 rule for another company, the role rules, the
 * last-owner rule, and cascade completeness (rows of every table counted before and after).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { purgeDeletedAttachments } from '../../src/domain/attachments/purge.ts';
import { sweepDeleted } from '../../src/domain/boards/sweep.ts';
import type { Database } from '../../src/storage/database.ts';
import { type ApiWorld, apiWorld } from '../support/api-world.ts';
import { addMember, storedFiles } from '../support/fixtures.ts';
import { type Api, apiClient, buildTwoCompanyApp, ENGINES, type OtherCompany, type TestApp } from '../support/harness.ts';
import { describeTiers } from '../support/tiers.ts';

/** Every table of the domain (the rate limiter's and the event record's aside). */
const TABLES: readonly (keyof Database)[] = [
  'users',
  'companies',
  'company_members',
  'teams',
  'team_members',
  'api_keys',
  'boards',
  'lists',
  'labels',
  'cards',
  'card_members',
  'card_labels',
  'card_seen',
  'checklists',
  'checklist_items',
  'checklist_item_members',
  'comments',
  'discussions',
  'cheers',
  'attachments',
  'attachment_seen',
  'released_files',
];

type Counts = Record<string, number>;

async function rowCounts(t: TestApp): Promise<Counts> {
  const counts: Counts = {};
  for (const table of TABLES) {
    const row = await t.services.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    counts[table] = Number(row.n);
  }
  return counts;
}

/** `after` minus `before`, table by table, leaving out the tables that did not change. */
function changes(before: Counts, afterwards: Counts): Counts {
  return Object.fromEntries(
    Object.keys(before).flatMap((table) => (afterwards[table] === before[table] ? [] : [[table, (afterwards[table] ?? 0) - (before[table] ?? 0)]])),
  );
}

async function eventTypes(t: TestApp): Promise<string[]> {
  return (await t.services.db.selectFrom('events').select('type').orderBy('seq').execute()).map((row) => row.type);
}

for (const engine of ENGINES) {
  describe(`the whole life of every object [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    let other: OtherCompany;
    let world: ApiWorld;

    before(async () => ({ t, api, other } = await buildTwoCompanyApp(engine)));
    after(() => t.dispose());
    beforeEach(async () => {
      world = await apiWorld(t);
      // a label on the card and the caller a member of it, so those links are counted too
      for (const [part, body] of [
        ['labels', { labels: [world.labelId] }],
        ['members', { members: [t.tenant.userId] }],
      ] as const) {
        const res = await api('POST', `/v2/cards/${world.cardId}/${part}`, body);
        assert.equal(res.statusCode, 200, res.body);
      }
    });

    async function expect(method: string, url: string, status: number, payload?: unknown, as = api) {
      const res = await as(method as 'GET', url, payload);
      assert.equal(res.statusCode, status, `${method} ${url}: ${res.body}`);
      return res.json();
    }

    it('Delete Card removes the card and everything it keeps in one go; its files wait for the purge', async () => {
      const before = await rowCounts(t);
      const files = storedFiles(t.config.uploadDir).length;
      await expect('DELETE', `/api/v1/cards/${world.cardId}`, 404, undefined, other.api);
      assert.deepEqual(await rowCounts(t), before, "another company's request changes nothing");

      const body = await expect('DELETE', `/api/v1/cards/${world.cardId}`, 200);
      assert.deepEqual(body, { message: 'Card deleted', card: { _id: world.cardId } });
      assert.deepEqual(changes(before, await rowCounts(t)), {
        cards: -1,
        card_labels: -1,
        card_members: -1,
        checklists: -1,
        checklist_items: -1,
        comments: -1,
        discussions: -1,
        cheers: -1,
        attachments: -2,
        released_files: 2,
      });
      assert.ok((await eventTypes(t)).includes('card.deleted'));
      for (const url of [`/api/v1/cards/${world.cardId}`, `/api/v1/checklists/${world.checklistId}/items`]) await expect('GET', url, 404);
      await expect('DELETE', `/api/v1/cards/${world.cardId}`, 404);

      assert.equal(storedFiles(t.config.uploadDir).length, files, 'the files stay until the purge');
      const purged = await purgeDeletedAttachments({ ...t.services, clock: { now: () => Date.now() + 1000 } }, { olderThanDays: 0 });
      assert.equal(purged.files, 2);
      assert.equal(storedFiles(t.config.uploadDir).length, files - 2);
      assert.equal((await rowCounts(t)).released_files, before.released_files);
    });

    it('Delete Cards Multi Team is all or nothing', async () => {
      const second = (await expect('POST', '/api/v1/cards', 201, { list: world.listId, name: 'Second' })).card._id;
      const foreignBoard = (await expect('POST', `/api/v1/boards?teamId=${other.teamId}`, 201, { name: 'Theirs' }, other.api)).board._id;
      const foreignList = (await expect('POST', '/api/v1/lists', 201, { board: foreignBoard, name: 'L' }, other.api)).list._id;
      const foreign = (await expect('POST', '/api/v1/cards', 201, { list: foreignList, name: 'Theirs' }, other.api)).card._id;
      const mine = (cardId: string) => ({ cardId, companyId: t.tenant.companyId, teamId: t.tenant.teamId });
      const before = await rowCounts(t);
      const refused = await expect('PATCH', '/api/v1/cards/delete-multi-team', 404, {
        cards: [mine(world.cardId), { cardId: foreign, companyId: other.companyId, teamId: other.teamId }],
      });
      assert.deepEqual(
        refused.details.map((d: { field: string }) => d.field),
        ['body.cards[1]'],
      );
      assert.deepEqual(await rowCounts(t), before);

      const body = await expect('PATCH', '/api/v1/cards/delete-multi-team', 200, { cards: [mine(second), mine(world.cardId)] });
      assert.deepEqual(body.cards, [{ _id: second }, { _id: world.cardId }]);
      assert.equal((await rowCounts(t)).cards, (before.cards ?? 0) - 2);
      await expect('GET', `/api/v1/cards/${foreign}`, 200, undefined, other.api);
    });

    it('Delete List: 409 while it holds unarchived cards, else hidden at once and swept to nothing', async () => {
      const empty = (await expect('POST', '/api/v1/lists', 201, { board: world.boardId, name: 'Empty' })).list._id;
      await expect('DELETE', `/api/v1/lists/${world.listId}`, 404, undefined, other.api);
      await expect('DELETE', `/api/v1/lists/${world.listId}`, 409);
      await expect('DELETE', `/api/v1/lists/${empty}`, 200);

      const before = await rowCounts(t);
      assert.deepEqual(await expect('DELETE', `/api/v1/lists/${world.listId}?cascade=true`, 200), { message: 'List deleted', list: { _id: world.listId } });
      assert.deepEqual(await rowCounts(t), before, 'marked, not yet removed');
      for (const url of [`/api/v1/cards/${world.cardId}`, `/api/v1/lists/${world.listId}/cards`, `/api/v1/checklists/${world.checklistId}/items`])
        await expect('GET', url, 404);
      await expect('POST', '/api/v1/cards', 404, { list: world.listId, name: 'Late' });
      const board = (await expect('GET', `/api/v1/boards/${world.boardId}`, 200)).board;
      assert.deepEqual(board.lists, []);
      assert.ok(!(await expect('GET', '/api/v1/lists', 200)).lists.some((l: { _id: string }) => l._id === world.listId));

      const swept = await sweepDeleted(t.services, { batchCards: 1 });
      assert.deepEqual({ cards: swept.cards, lists: swept.lists, boards: swept.boards }, { cards: 1, lists: 2, boards: 0 });
      // both lists: the empty one deleted before `before` was counted was only marked until now
      assert.deepEqual(changes(before, await rowCounts(t)), {
        lists: -2,
        cards: -1,
        card_labels: -1,
        card_members: -1,
        checklists: -1,
        checklist_items: -1,
        comments: -1,
        discussions: -1,
        cheers: -1,
        attachments: -2,
        released_files: 2,
      });
      assert.ok((await eventTypes(t)).includes('list.deleted'));
    });

    it('Delete Board: owners and admins; hidden at once with its lists, cards and labels, then swept to nothing', async () => {
      const member = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: `m-${world.boardId}@acme.test` });
      const asMember = apiClient(t, member.apiKey);
      const before = await rowCounts(t);
      await expect('DELETE', `/api/v1/boards/${world.boardId}`, 404, undefined, other.api);
      await expect('DELETE', `/api/v1/boards/${world.boardId}`, 403, undefined, asMember);
      await expect('DELETE', `/api/v1/boards/${world.boardId}`, 200);
      for (const url of [
        `/api/v1/boards/${world.boardId}`,
        `/api/v1/boards/${world.boardId}/labels`,
        `/api/v1/cards/${world.cardId}`,
        `/api/v1/lists/${world.listId}/cards`,
      ]) {
        await expect('GET', url, 404);
      }
      await expect('PATCH', `/api/v1/labels/${world.labelId}`, 404, { name: 'x' });
      await expect('POST', '/api/v1/lists', 404, { board: world.boardId, name: 'Late' });
      assert.ok(!(await expect('GET', '/api/v1/boards', 200)).boards.some((b: { _id: string }) => b._id === world.boardId));

      await sweepDeleted(t.services, { batchCards: 1 });
      assert.deepEqual(changes(before, await rowCounts(t)), {
        boards: -1,
        lists: -1,
        labels: -1,
        cards: -1,
        card_labels: -1,
        card_members: -1,
        checklists: -1,
        checklist_items: -1,
        comments: -1,
        discussions: -1,
        cheers: -1,
        attachments: -2,
        released_files: 2,
      });
      assert.ok((await eventTypes(t)).includes('board.deleted'));
    });

    it('Update, Archive and Unarchive Board and List: archived ones leave the reads unless archived=true', async () => {
      const board = (await expect('PATCH', `/api/v1/boards/${world.boardId}`, 200, { name: ' Renamed ', description: 'What we do' })).board;
      assert.deepEqual([board.name, board.description, board.__v], ['Renamed', 'What we do', 1]);
      await expect('PATCH', `/api/v1/boards/${world.boardId}`, 404, { name: 'x' }, other.api);
      await expect('PATCH', `/api/v1/boards/${world.boardId}/archive`, 404, undefined, other.api);

      const list = (await expect('PATCH', `/api/v1/lists/${world.listId}/archive`, 200)).list;
      assert.equal(list.archived.status, true);
      assert.deepEqual((await expect('GET', `/api/v1/boards/${world.boardId}`, 200)).board.lists, []);
      assert.equal((await expect('GET', `/api/v1/boards/${world.boardId}?archived=true`, 200)).board.lists.length, 1);
      const lists = async (query = '') => (await expect('GET', `/api/v1/lists${query}`, 200)).lists.map((l: { _id: string }) => l._id);
      assert.ok(!(await lists()).includes(world.listId));
      assert.ok((await lists('?archived=true')).includes(world.listId));
      await expect('PATCH', `/api/v1/lists/${world.listId}/unarchive`, 200);
      assert.ok((await lists()).includes(world.listId));

      const archived = (await expect('PATCH', `/api/v1/boards/${world.boardId}/archive`, 200)).board;
      assert.equal(archived.archived.status, true);
      const again = (await expect('PATCH', `/api/v1/boards/${world.boardId}/archive`, 200)).board;
      assert.equal(again.archived.at, archived.archived.at, 'archiving an archived board keeps its time');
      const boards = async (query = '') => (await expect('GET', `/api/v1/boards${query}`, 200)).boards.map((b: { _id: string }) => b._id);
      assert.ok(!(await boards()).includes(world.boardId));
      assert.ok((await boards('?archived=true')).includes(world.boardId));
      assert.ok(!(await lists()).includes(world.listId), "an archived board's lists go with it");
      await expect('GET', `/api/v1/boards/${world.boardId}`, 200);
      await expect('PATCH', `/api/v1/boards/${world.boardId}/unarchive`, 200);
      assert.ok((await boards()).includes(world.boardId));
      const types = await eventTypes(t);
      for (const type of ['board.updated', 'list.archived', 'list.unarchived', 'board.archived', 'board.unarchived']) assert.ok(types.includes(type), type);
    });

    it('My Tasks leaves out the cards of archived lists and boards unless archived=true', async () => {
      const card = (await expect('POST', '/api/v1/cards', 201, { list: world.listId, name: 'Mine' })).card._id;
      await expect('POST', `/v2/cards/${card}/members`, 200, { members: [t.tenant.userId] });
      const mine = async (query = '') => (await expect('GET', `/api/v1/my-tasks${query}`, 200)).cards.map((c: { _id: string }) => c._id);
      assert.ok((await mine()).includes(card));
      await expect('PATCH', `/api/v1/lists/${world.listId}/archive`, 200);
      assert.ok(!(await mine()).includes(card));
      assert.ok((await mine('?archived=true')).includes(card));
      await expect('PATCH', `/api/v1/lists/${world.listId}/unarchive`, 200);
      await expect('PATCH', `/api/v1/boards/${world.boardId}/archive`, 200);
      assert.ok(!(await mine()).includes(card));
      await expect('PATCH', `/api/v1/boards/${world.boardId}/unarchive`, 200);
      assert.ok((await mine()).includes(card));
    });
  });
}

describeTiers('the lifecycle operations', {
  engines: ['sqlite'],
  given: async (t) => apiWorld(t),
  calls: async (api, w) => {
    const mine = { cardId: w.cardId, companyId: w.companyId, teamId: w.teamId };
    await api('PATCH', `/api/v1/boards/${w.boardId}`, { name: 'B' });
    await api('PATCH', `/api/v1/boards/${w.boardId}/archive`);
    await api('PATCH', `/api/v1/boards/${w.boardId}/unarchive`);
    await api('PATCH', `/api/v1/lists/${w.listId}/archive`);
    await api('PATCH', `/api/v1/lists/${w.listId}/unarchive`);
    const second = (await api('POST', '/api/v1/cards', { list: w.listId, name: 'Second' })).json().card._id;
    await api('PATCH', '/api/v1/cards/delete-multi-team', { cards: [{ ...mine, cardId: second }] });
    await api('DELETE', `/api/v1/cards/${w.cardId}`);
    await api('DELETE', `/api/v1/lists/${w.listId}`);
    await api('DELETE', `/api/v1/boards/${w.boardId}`);
    await api('PATCH', `/api/v1/companies/${w.companyId}`, { name: 'Acme Inc' });
    await api('PATCH', `/api/v1/teams/${w.teamId}`, { name: 'Core team' });
    await api('PATCH', '/api/v1/me', { fullName: 'Olive O.' });
    await api('DELETE', `/api/v1/teams/${w.teamId}/members/me`);
  },
  expected: [
    ['PATCH', '/api/v1/boards/:boardId', 'low'],
    ['PATCH', '/api/v1/boards/:boardId/archive', 'low'],
    ['PATCH', '/api/v1/boards/:boardId/unarchive', 'low'],
    ['PATCH', '/api/v1/lists/:listId/archive', 'low'],
    ['PATCH', '/api/v1/lists/:listId/unarchive', 'low'],
    ['POST', '/api/v1/cards', 'medium'],
    ['PATCH', '/api/v1/cards/delete-multi-team', 'high'],
    ['DELETE', '/api/v1/cards/:cardId', 'medium'],
    ['DELETE', '/api/v1/lists/:listId', 'high'],
    ['DELETE', '/api/v1/boards/:boardId', 'high'],
    ['PATCH', '/api/v1/companies/:companyId', 'high'],
    ['PATCH', '/api/v1/teams/:teamId', 'high'],
    ['PATCH', '/api/v1/me', 'low'],
    ['DELETE', '/api/v1/teams/:teamId/members/me', 'high'],
  ].map(([method, route, tier]) => [`${method} ${route}`, tier] as const) as never,
});
