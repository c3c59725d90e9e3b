/**
 * Card templates on both engines (docs/api.md, "Card templates"; docs/decisions/0302): a card made a
 * template of its board by Update Card, shown so in its record, face and export; new cards copied from
 * it keep its description, labels, members and checklists and are not templates; the Trello import
 * keeps Trello's template cards as templates.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedBoard } from '../support/fixtures.ts';
import { type Api, apiClient, bearer, buildTestApp, ENGINES, otherCompany, type TestApp } from '../support/harness.ts';
import { eventually } from '../support/receiver.ts';
import { importForm, smallTrelloExport } from '../support/trello.ts';

type Json = Record<string, any>;

for (const engine of ENGINES) {
  describe(`card templates [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    let boardId: string;
    let lists: string[];
    let labelId: string;

    before(async () => {
      t = await buildTestApp(engine);
      api = apiClient(t, t.tenant.apiKey);
      const board = await seedBoard(t.services, t.tenant, { lists: 2, labels: 1 });
      boardId = board.boardId;
      lists = board.listIds;
      labelId = board.labelIds[0] as string;
    });
    after(() => t.dispose());

    async function json(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: object, status = 200): Promise<Json> {
      const res = await api(method, url, body);
      assert.equal(res.statusCode, status, `${method} ${url}: ${res.body}`);
      return res.json();
    }

    it('makes a card a template, and new cards from it that keep its parts', async () => {
      const { card } = await json('POST', '/api/v1/cards', { list: lists[0], name: 'Bug report', description: 'Steps:\n1.' }, 201);
      await json('POST', `/v2/cards/${card._id}/labels`, { labels: [labelId] });
      await json('POST', `/v2/cards/${card._id}/members`, { members: [t.tenant.userId] });
      const { checklist } = await json('POST', `/api/v1/cards/${card._id}/checklists`, { name: 'Triage' }, 201);
      await json('POST', `/api/v1/checklists/${checklist._id}/items`, { name: 'Reproduce' }, 201);
      assert.equal(card.isTemplate, false);

      const made = (await json('PATCH', `/api/v1/cards/${card._id}`, { isTemplate: true })).card;
      assert.equal(made.isTemplate, true);
      const faces = (await json('GET', `/api/v1/boards/${boardId}/card-faces`)).board;
      const face = faces.lists[0].cards.find((one: Json) => one._id === card._id);
      assert.equal(face.isTemplate, true);
      const events = (await json('GET', `/api/v1/cards/${card._id}/activity?type=card.updated`)).events as Json[];
      const updated = events[0];
      assert.deepEqual(updated?.data.fields, ['isTemplate']);

      // a card from the template: its parts, in another list, not a template itself
      const copy = (await json('POST', `/api/v1/cards/${card._id}/copy`, { list: lists[1], name: 'Login fails', position: 'top' }, 201)).card;
      assert.deepEqual(
        [copy.name, copy.list, copy.isTemplate, copy.description, copy.labels.map((l: Json) => l._id), copy.members.map((m: Json) => m._id)],
        ['Login fails', lists[1], false, 'Steps:\n1.', [labelId], [t.tenant.userId]],
      );
      const copied = (await json('GET', `/api/v1/cards/${copy._id}/checklists`)).checklists as Json[];
      assert.deepEqual(
        copied.map((one) => one.name),
        ['Triage'],
      );
      assert.equal((await json('GET', `/api/v1/cards/${card._id}`)).card.isTemplate, true);

      const exported = await json('GET', `/api/v1/boards/${boardId}/export`);
      assert.deepEqual(
        exported.cards.filter((one: Json) => [card._id, copy._id].includes(one._id)).map((one: Json) => [one.name, one.isTemplate]),
        [
          ['Bug report', true],
          ['Login fails', false],
        ],
      );

      // and a plain card again
      assert.equal((await json('PATCH', `/api/v1/cards/${card._id}`, { isTemplate: false })).card.isTemplate, false);
      const refused = await api('PATCH', `/api/v1/cards/${card._id}`, { isTemplate: 'yes' });
      assert.equal(refused.statusCode, 400, refused.body);
    });

    it('keeps templates on the team: every board of it lists them and makes cards from them, labels matched by name and colour', async () => {
      const colors = (await json('GET', '/api/v1/label-colors')).colors as Json[];
      const board = async (name: string, labels: [string, number][]) => {
        const made = (await json('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name }, 201)).board;
        const list = (await json('POST', '/api/v1/lists', { board: made._id, name: 'Inbox' }, 201)).list;
        const ids: string[] = [];
        for (const [label, colour] of labels)
          ids.push((await json('POST', `/api/v1/boards/${made._id}/labels`, { name: label, color: colors[colour]?._id }, 201)).label._id);
        return { id: made._id as string, list: list._id as string, labels: ids };
      };
      const support = await board('Support desk', [
        ['Bug', 0],
        ['Urgent', 1],
      ]);
      const ops = await board('Ops desk', [
        ['Bug', 0],
        ['Urgent', 2],
      ]);
      const { card } = await json('POST', '/api/v1/cards', { list: support.list, name: 'Incident report' }, 201);
      await json('POST', `/v2/cards/${card._id}/labels`, { labels: support.labels });
      await json('PATCH', `/api/v1/cards/${card._id}`, { isTemplate: true });
      // an archived template is no choice
      const { card: old } = await json('POST', '/api/v1/cards', { list: support.list, name: 'Old form' }, 201);
      await json('PATCH', `/api/v1/cards/${old._id}`, { isTemplate: true });
      await json('PATCH', `/api/v1/cards/${old._id}/archive`);

      const listed = (await json('GET', `/api/v1/teams/${t.tenant.teamId}/card-templates`)).cardTemplates as Json[];
      assert.deepEqual(
        listed.filter((one) => one.board === support.id),
        [{ _id: card._id, name: 'Incident report', board: support.id, boardName: 'Support desk', list: support.list }],
      );
      // made on the other board: "Bug" is the same name and colour there, "Urgent" is not (another colour)
      const copy = await json('POST', `/api/v1/cards/${card._id}/copy`, { list: ops.list, name: 'Disk full' }, 201);
      assert.deepEqual(
        copy.card.labels.map((l: Json) => l._id),
        [ops.labels[0]],
      );
      assert.deepEqual(copy.dropped.labels, [support.labels[1]]);
      assert.equal(copy.card.isTemplate, false);
      // a plain card copied across boards still loses its labels
      const { card: plain } = await json('POST', '/api/v1/cards', { list: support.list, name: 'Plain' }, 201);
      await json('POST', `/v2/cards/${plain._id}/labels`, { labels: [support.labels[0]] });
      const plainCopy = await json('POST', `/api/v1/cards/${plain._id}/copy`, { list: ops.list }, 201);
      assert.deepEqual([plainCopy.card.labels, plainCopy.dropped.labels], [[], [support.labels[0]]]);

      // nobody outside the team reads them
      const other = await otherCompany(t);
      assert.equal((await other.api('GET', `/api/v1/teams/${t.tenant.teamId}/card-templates`)).statusCode, 404);
    });

    it("keeps Trello's template cards as templates on import", async () => {
      const source = smallTrelloExport();
      source.cards[0].isTemplate = true;
      const form = importForm(JSON.stringify(source));
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/v1/imports/trello?teamId=${t.tenant.teamId}`,
        headers: { ...bearer(t.tenant.apiKey), ...form.headers },
        payload: form.payload,
      });
      assert.equal(res.statusCode, 202, res.body);
      const done = await eventually(
        async () => (await json('GET', `/api/v1/imports/${res.json().import._id}`)).import as Json,
        (record) => record.status !== 'running',
        60_000,
        'the import to end',
      );
      assert.equal(done.status, 'done', JSON.stringify(done));
      const exported = await json('GET', `/api/v1/boards/${done.board}/export`);
      assert.deepEqual(
        exported.cards.filter((one: Json) => one.isTemplate).map((one: Json) => one.name),
        [source.cards[0].name],
      );
      assert.equal(exported.cards.length, source.cards.length);
    });
  });
}
