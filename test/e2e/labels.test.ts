import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId, nowIso } from '../../src/domain/shared/ids.ts';
import { Label, LabelColor } from '../../src/schemas/records.ts';
import { LABEL_PALETTE } from '../../src/storage/migrations/0001_initial.ts';
import { cardRow } from '../support/fixtures.ts';
import { type Api, buildTwoCompanyApp, ENGINES, type OtherCompany, type TestApp } from '../support/harness.ts';
import { assertSchema } from '../support/schema.ts';
import { describeTiers } from '../support/tiers.ts';
import { assertUpdatedAtMoved, backdate } from '../support/updated-at.ts';

const ID = /^[0-9a-f]{24}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const GREEN = LABEL_PALETTE[0] as (typeof LABEL_PALETTE)[number];
const RED = LABEL_PALETTE[3] as (typeof LABEL_PALETTE)[number];

interface LabelRecord {
  _id: string;
  name: string;
  color: { _id: string; name: string; hex: string };
  __v: number;
  createdAt: string;
  updatedAt: string;
}

for (const engine of ENGINES) {
  describe(`labels and label colours [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    let other: OtherCompany;

    before(async () => ({ t, api, other } = await buildTwoCompanyApp(engine)));
    after(() => t.dispose());

    async function createBoard(name: string) {
      const res = await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().board as { _id: string; company: string; team: string };
    }

    it("starts a board with Trello's six default labels when asked, in its transaction, and with none otherwise", async () => {
      const plain = await createBoard('No labels');
      assert.deepEqual((await api('GET', `/api/v1/boards/${plain._id}/labels`)).json().labels, []);
      const res = await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Trello-like', defaultLabels: true });
      assert.equal(res.statusCode, 201, res.body);
      const boardId = res.json().board._id;
      const labels = (await api('GET', `/api/v1/boards/${boardId}/labels`)).json().labels as LabelRecord[];
      assert.deepEqual(
        labels.map((label) => [label.name, label.color._id, label.color.name]),
        LABEL_PALETTE.slice(0, 6).map((colour) => ['', colour.id, colour.name]),
      );
      for (const label of labels) assertSchema(Label, label);
      // one event per label beside the board's own, all of one commit
      const events = await t.storage.db.selectFrom('events').select(['type', 'created_at']).where('board_id', '=', boardId).execute();
      assert.deepEqual(events.map((event) => event.type).sort(), ['board.created', ...Array(6).fill('label.created')]);
      assert.equal(new Set(events.map((event) => event.created_at)).size, 1);
      const bad = await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'x', defaultLabels: 'yes' });
      assert.equal(bad.statusCode, 400);
    });

    async function createLabel(boardId: string, name: string, color = GREEN.id): Promise<LabelRecord> {
      const res = await api('POST', `/api/v1/boards/${boardId}/labels`, { name, color });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().label;
    }

    /** Cards written straight to storage (this suite tests labels, not card creation), carrying `labelIds`. */
    async function insertCard(board: { _id: string; company: string; team: string }, listId: string, labelIds: string[]) {
      // an old timestamp, so that a change to the card shows as a moved updatedAt
      const old = '2020-01-01T00:00:00.000Z';
      const row = cardRow({ ...board, board: board._id, _id: listId }, t.tenant.userId, 'card', 1024, { created_at: old, updated_at: old });
      const id = row.id;
      await t.services.db.insertInto('cards').values(row).execute();
      for (const labelId of labelIds) {
        await t.services.db.insertInto('card_labels').values({ card_id: id, label_id: labelId, created_at: nowIso() }).execute();
      }
      return id;
    }

    async function cardState(id: string) {
      const row = await t.services.db.selectFrom('cards').select(['version', 'updated_at']).where('id', '=', id).executeTakeFirstOrThrow();
      const labels = await t.services.db.selectFrom('card_labels').select('label_id').where('card_id', '=', id).orderBy('label_id').execute();
      return { version: row.version, updatedAt: row.updated_at, labels: labels.map((l) => l.label_id) };
    }

    it('answers the fixed palette in order, with stable ids', async () => {
      const res = await api('GET', '/api/v1/label-colors');
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.equal(typeof body.message, 'string');
      for (const color of body.colors) assertSchema(LabelColor, color);
      assert.deepEqual(
        body.colors,
        LABEL_PALETTE.map((c) => ({ _id: c.id, name: c.name, hex: c.hex })),
      );
      assert.equal((await api('GET', '/api/v1/label-colors?teamId=x')).statusCode, 400, 'takes no query');
      assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/label-colors' })).statusCode, 401);
    });

    it('creates labels on a board and lists them, oldest first', async () => {
      const board = await createBoard('Labelled');
      const res = await api('POST', `/api/v1/boards/${board._id}/labels?companyId=${t.tenant.companyId}&teamId=${t.tenant.teamId}`, {
        name: '  Bug ',
        color: RED.id,
      });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(typeof res.json().message, 'string');
      const bug = res.json().label;
      assertSchema(Label, bug);
      assert.match(bug._id, ID);
      assert.equal(bug.name, 'Bug');
      assert.equal(bug.creator, t.tenant.userId);
      assert.deepEqual(bug.color, { _id: RED.id, name: RED.name, hex: RED.hex });
      assert.equal(bug.company, t.tenant.companyId);
      assert.equal(bug.team, t.tenant.teamId);
      assert.equal(bug.board, board._id);
      assert.match(bug.createdAt, ISO);
      assert.equal(bug.__v, 0);
      const feature = await createLabel(board._id, 'Feature');

      const list = await api('GET', `/api/v1/boards/${board._id}/labels`);
      assert.equal(list.statusCode, 200);
      assert.equal(typeof list.json().message, 'string');
      assert.deepEqual(list.json().labels, [bug, feature]);
      const otherBoard = await createBoard('Unlabelled');
      assert.deepEqual((await api('GET', `/api/v1/boards/${otherBoard._id}/labels`)).json().labels, []);
    });

    it('renames and recolours a label, growing its __v by one per change', async () => {
      const board = await createBoard('Recolour');
      const label = await createLabel(board._id, 'Old');
      await backdate(t.services.db, 'labels', label._id);
      const renamed = await api('PATCH', `/api/v1/labels/${label._id}`, { name: ' New ' });
      assert.equal(renamed.statusCode, 200, renamed.body);
      assert.equal(typeof renamed.json().message, 'string');
      assertSchema(Label, renamed.json().label);
      assert.equal(renamed.json().label.name, 'New');
      assert.deepEqual(renamed.json().label.color, label.color);
      assert.equal(renamed.json().label.__v, 1);
      await assertUpdatedAtMoved(t.services.db, 'labels', label._id, renamed.json().label.updatedAt, 'a rename');
      await backdate(t.services.db, 'labels', label._id);
      const recoloured = await api('PATCH', `/api/v1/labels/${label._id}?teamId=${t.tenant.teamId}`, { color: RED.id });
      assert.equal(recoloured.statusCode, 200);
      assert.deepEqual(recoloured.json().label.color, { _id: RED.id, name: RED.name, hex: RED.hex });
      assert.equal(recoloured.json().label.__v, 2);
      await assertUpdatedAtMoved(t.services.db, 'labels', label._id, recoloured.json().label.updatedAt, 'a recolour');
      await backdate(t.services.db, 'labels', label._id);
      const both = await api('PATCH', `/api/v1/labels/${label._id}`, { name: 'Both', color: GREEN.id });
      assert.equal(both.json().label.__v, 3);
      assert.equal(both.json().label.createdAt, label.createdAt);
      await assertUpdatedAtMoved(t.services.db, 'labels', label._id, both.json().label.updatedAt, 'a rename with a recolour');
      assert.deepEqual((await api('GET', `/api/v1/boards/${board._id}/labels`)).json().labels, [both.json().label]);
    });

    it('deletes a label, taking it off every card that carried it and bumping those cards', async () => {
      const board = await createBoard('Cleanup');
      const list = (await api('POST', '/api/v1/lists', { board: board._id, name: 'L' })).json().list;
      const doomed = await createLabel(board._id, 'Doomed');
      const kept = await createLabel(board._id, 'Kept');
      const both = await insertCard(board, list._id, [doomed._id, kept._id]);
      const onlyDoomed = await insertCard(board, list._id, [doomed._id]);
      const untouched = await insertCard(board, list._id, [kept._id]);
      const before = { both: await cardState(both), onlyDoomed: await cardState(onlyDoomed), untouched: await cardState(untouched) };

      const res = await api('DELETE', `/api/v1/labels/${doomed._id}?companyId=${t.tenant.companyId}`);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(typeof res.json().message, 'string');
      assertSchema(Label, res.json().label);
      assert.deepEqual(res.json().label, doomed, 'answers the label as it was');

      const afterBoth = await cardState(both);
      assert.deepEqual(afterBoth.labels, [kept._id]);
      assert.equal(afterBoth.version, before.both.version + 1);
      assert.ok(afterBoth.updatedAt > before.both.updatedAt, 'updatedAt moved');
      const afterOnly = await cardState(onlyDoomed);
      assert.deepEqual(afterOnly.labels, []);
      assert.equal(afterOnly.version, before.onlyDoomed.version + 1);
      assert.ok(afterOnly.updatedAt > before.onlyDoomed.updatedAt, 'updatedAt moved');
      assert.deepEqual(await cardState(untouched), before.untouched, 'a card without the label does not change');

      // the board view shows the cards without it, with the new __v
      const view = (await api('GET', `/api/v1/boards/${board._id}`)).json().board;
      const cards = view.lists[0].cards as { _id: string; labels: { _id: string }[]; __v: number }[];
      assert.deepEqual(cards.find((c) => c._id === onlyDoomed)?.labels, []);
      assert.equal(cards.find((c) => c._id === both)?.__v, before.both.version + 1);

      assert.deepEqual((await api('GET', `/api/v1/boards/${board._id}/labels`)).json().labels, [kept]);
      assert.equal((await api('DELETE', `/api/v1/labels/${doomed._id}`)).statusCode, 404, 'gone');
      assert.equal((await api('PATCH', `/api/v1/labels/${doomed._id}`, { name: 'Back' })).statusCode, 404);
    });

    it("keeps another company's board and labels out of reach and unchanged", async () => {
      const board = await createBoard('Guarded');
      const label = await createLabel(board._id, 'Mine');
      const list = (await api('POST', '/api/v1/lists', { board: board._id, name: 'L' })).json().list;
      const card = await insertCard(board, list._id, [label._id]);
      const cardBefore = await cardState(card);

      const attempts = [
        await other.api('GET', `/api/v1/boards/${board._id}/labels`),
        await other.api('POST', `/api/v1/boards/${board._id}/labels`, { name: 'Intruder', color: GREEN.id }),
        await other.api('PATCH', `/api/v1/labels/${label._id}`, { name: 'Hacked' }),
        await other.api('DELETE', `/api/v1/labels/${label._id}`),
        await other.api('DELETE', `/api/v1/labels/${label._id}?companyId=${t.tenant.companyId}&teamId=${t.tenant.teamId}`),
        await api('GET', `/api/v1/boards/${board._id}/labels?companyId=${other.companyId}`),
        await api('POST', `/api/v1/boards/${board._id}/labels?teamId=${other.teamId}`, { name: 'Wrong scope', color: GREEN.id }),
        await api('PATCH', `/api/v1/labels/${label._id}?teamId=${other.teamId}`, { name: 'Wrong scope' }),
        await api('DELETE', `/api/v1/labels/${label._id}?companyId=${other.companyId}`),
        await api('GET', `/api/v1/boards/${newId()}/labels`),
        await api('PATCH', `/api/v1/labels/${newId()}`, { name: 'Ghost' }),
        await api('DELETE', `/api/v1/labels/${newId()}`),
      ];
      for (const res of attempts) {
        assert.equal(res.statusCode, 404, res.body);
        assert.equal(res.json().code, 'not_found');
      }
      assert.deepEqual((await api('GET', `/api/v1/boards/${board._id}/labels`)).json().labels, [label], 'nothing changed');
      assert.deepEqual(await cardState(card), cardBefore);
    });

    it('rejects bad label input with 400 naming the field, never 5xx', async () => {
      const board = await createBoard('Strict');
      const label = await createLabel(board._id, 'Only');

      const unknownColor = await api('POST', `/api/v1/boards/${board._id}/labels`, { name: 'x', color: newId() });
      assert.equal(unknownColor.statusCode, 400);
      assert.equal(unknownColor.json().code, 'validation_failed');
      assert.deepEqual(
        unknownColor.json().details.map((d: { field: string }) => d.field),
        ['body.color'],
      );
      const unknownColorPatch = await api('PATCH', `/api/v1/labels/${label._id}`, { color: 'ffffffffffffffffffffffff' });
      assert.equal(unknownColorPatch.statusCode, 400);
      assert.deepEqual(
        unknownColorPatch.json().details.map((d: { field: string }) => d.field),
        ['body.color'],
      );

      const creates: [string, string, unknown][] = [
        ['missing name', board._id, { color: GREEN.id }],
        ['missing color', board._id, { name: 'x' }],
        ['blank name', board._id, { name: '  ', color: GREEN.id }],
        ['number name', board._id, { name: 3, color: GREEN.id }],
        ['colour by name', board._id, { name: 'x', color: 'green' }],
        ['colour object', board._id, { name: 'x', color: { _id: GREEN.id } }],
        ['unknown field', board._id, { name: 'x', color: GREEN.id, board: board._id }],
        ['malformed board id', 'nope', { name: 'x', color: GREEN.id }],
      ];
      for (const [what, boardId, payload] of creates) {
        const res = await api('POST', `/api/v1/boards/${boardId}/labels`, payload);
        assert.equal(res.statusCode, 400, `${what}: ${res.body}`);
        assert.equal(res.json().code, 'validation_failed', what);
        assert.equal(typeof res.json().message, 'string');
      }
      const patches: [string, string, unknown][] = [
        ['empty body', label._id, {}],
        ['blank name', label._id, { name: '' }],
        ['array name', label._id, { name: ['x'] }],
        ['unknown field', label._id, { name: 'x', hex: '#fff' }],
        ['malformed id', '123', { name: 'x' }],
      ];
      for (const [what, id, payload] of patches) {
        const res = await api('PATCH', `/api/v1/labels/${id}`, payload);
        assert.equal(res.statusCode, 400, `${what}: ${res.body}`);
        assert.equal(res.json().code, 'validation_failed', what);
      }
      assert.equal((await api('DELETE', '/api/v1/labels/ZZZ')).statusCode, 400);
      assert.equal((await api('GET', `/api/v1/boards/${board._id}/labels?teamId=x`)).statusCode, 400);
      assert.deepEqual((await api('GET', `/api/v1/boards/${board._id}/labels`)).json().labels, [label], 'nothing changed');
    });
  });
}

describeTiers('label routes', {
  engines: ENGINES,
  given: async (t, api) => (await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Tiered' })).json().board,
  calls: async (api, board) => {
    await api('GET', '/api/v1/label-colors');
    const label = (await api('POST', `/api/v1/boards/${board._id}/labels`, { name: 'L', color: GREEN.id })).json().label;
    await api('GET', `/api/v1/boards/${board._id}/labels`);
    await api('PATCH', `/api/v1/labels/${label._id}`, { name: 'M' });
    await api('DELETE', `/api/v1/labels/${label._id}`);
  },
  expected: [
    ['GET /api/v1/label-colors', 'very-low'],
    ['POST /api/v1/boards/:boardId/labels', 'medium'],
    ['GET /api/v1/boards/:boardId/labels', 'very-low'],
    ['PATCH /api/v1/labels/:labelId', 'low'],
    ['DELETE /api/v1/labels/:labelId', 'low'],
  ],
});
