/**
 * Custom fields over HTTP on both engines: definitions (every type, options, rename, reorder, type
 * changes that convert or are refused, delete with its count), values set and cleared in one request
 * with If-Match, bad values refused naming their field with nothing written, the values in Get Card
 * Details, the board reads and the faces, their events, and the 404 outside the caller's reach.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadCard } from '../../src/domain/cards/service.ts';
import { CustomField } from '../../src/schemas/custom-fields.ts';
import { Card } from '../../src/schemas/records.ts';
import { LABEL_PALETTE } from '../../src/storage/migrations/0001_initial.ts';
import { deleteCustomField, lockCustomField, updateCustomField } from '../../src/storage/repositories/custom-fields.ts';
import { expectedEntries, indexedEntries } from '../../src/storage/repositories/search.ts';
import { addMember, cardRow } from '../support/fixtures.ts';
import { type Api, bearer, buildTwoCompanyApp, ENGINES, type OtherCompany, type TestApp } from '../support/harness.ts';
import { holdLocks, runAgainst } from '../support/held-locks.ts';
import { assertSchema } from '../support/schema.ts';
import { describeTiers } from '../support/tiers.ts';

const GREEN = LABEL_PALETTE[0]!.id;
const RED = LABEL_PALETTE[3]!.id;

type Field = {
  _id: string;
  name: string;
  type: string;
  unit: string;
  showOnCard: boolean;
  options: { _id: string; name: string; color: { _id: string } }[];
  position: number;
  cardsWithValue: number;
  __v: number;
};

for (const engine of ENGINES) {
  describe(`custom fields [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    let other: OtherCompany;
    let boardId: string;
    let listId: string;
    let fields: Record<string, Field>;

    before(async () => {
      ({ t, api, other } = await buildTwoCompanyApp(engine));
      boardId = (await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Fields' })).json().board._id;
      listId = (await api('POST', '/api/v1/lists', { board: boardId, name: 'Todo' })).json().list._id;
      fields = {};
      for (const [name, body] of Object.entries({
        Notes: { type: 'text' },
        Estimate: { type: 'number', unit: 'h', showOnCard: true },
        Deadline: { type: 'date' },
        Priority: {
          type: 'select',
          options: [
            { name: 'High', color: RED },
            { name: 'Low', color: GREEN },
          ],
        },
        Areas: {
          type: 'multiselect',
          options: [
            { name: 'API', color: RED },
            { name: 'Web', color: GREEN },
            { name: 'Docs', color: GREEN },
          ],
        },
        Approved: { type: 'checkbox' },
        Reviewer: { type: 'person' },
        Link: { type: 'url' },
      })) {
        const res = await api('POST', `/api/v1/boards/${boardId}/custom-fields`, { name, ...body });
        assert.equal(res.statusCode, 201, res.body);
        assertSchema(CustomField, res.json().customField);
        fields[name] = res.json().customField;
      }
    });
    after(() => t.dispose());

    async function newCard(name = 'card', list = listId): Promise<{ _id: string; __v: number }> {
      const res = await api('POST', '/api/v1/cards', { list, name });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().card;
    }
    const set = (cardId: string, values: { field: string; value: unknown }[], headers: Record<string, string> = {}) =>
      t.app.inject({ method: 'PATCH', url: `/api/v1/cards/${cardId}/custom-fields`, headers: { ...bearer(t.tenant.apiKey), ...headers }, payload: { values } });
    const card = async (cardId: string) => (await api('GET', `/api/v1/cards/${cardId}`)).json().card as Card;
    const fieldValue = (c: Card, field: Field) => c.customFields.find((v) => v.field === field._id)?.value;
    /** The stored view of the card answers what the tables hold (the read model stays true). */
    async function assertReadModelTrue(cardId: string) {
      const served = await card(cardId);
      const built = JSON.parse(JSON.stringify(await loadCard(t.services, cardId)));
      assert.deepEqual(served, built);
    }

    it('defines fields of every type, in order, with options and units', async () => {
      const res = await api('GET', `/api/v1/boards/${boardId}/custom-fields`);
      assert.equal(res.statusCode, 200);
      const listed = res.json().customFields as Field[];
      assert.deepEqual(
        listed.map((f) => [f.name, f.type, f.position]),
        ['Notes', 'Estimate', 'Deadline', 'Priority', 'Areas', 'Approved', 'Reviewer', 'Link'].map((name, i) => [name, fields[name]!.type, i]),
      );
      assert.equal(listed[1]!.unit, 'h');
      assert.equal(listed[1]!.showOnCard, true);
      assert.deepEqual(
        listed[3]!.options.map((o) => [o.name, o.color._id]),
        [
          ['High', RED],
          ['Low', GREEN],
        ],
      );
    });

    it('refuses a second field of one name (409), a unit off a number, options off a select, an unknown colour (400)', async () => {
      const url = `/api/v1/boards/${boardId}/custom-fields`;
      assert.equal((await api('POST', url, { name: 'Notes', type: 'number' })).statusCode, 409);
      const unit = await api('POST', url, { name: 'U', type: 'text', unit: 'kg' });
      assert.equal(unit.statusCode, 400);
      assert.equal(unit.json().details[0].field, 'body.unit');
      assert.equal((await api('POST', url, { name: 'O', type: 'text', options: [{ name: 'a', color: RED }] })).statusCode, 400);
      const colour = await api('POST', url, { name: 'C', type: 'select', options: [{ name: 'a', color: 'ffffffffffffffffffffffff' }] });
      assert.equal(colour.statusCode, 400);
      assert.equal(colour.json().details[0].field, 'body.options[0].color');
      assert.equal((await api('POST', url, { name: 'T', type: 'rating' })).statusCode, 400);
      const names = (await api('GET', url)).json().customFields.map((f: Field) => f.name);
      assert.deepEqual(names, ['Notes', 'Estimate', 'Deadline', 'Priority', 'Areas', 'Approved', 'Reviewer', 'Link'], 'nothing was written');
    });

    it('sets every type in one change, shows the values in every read, and clears them', async () => {
      const c = await newCard('Valued');
      const member = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: `rev-${engine}@acme.test` });
      const f = fields as Record<string, Field>;
      const res = await set(
        c._id,
        [
          { field: f.Notes!._id, value: '  spec first ' },
          { field: f.Estimate!._id, value: 3.5 },
          { field: f.Deadline!._id, value: '2026-12-24T17:00:00+01:00' },
          { field: f.Priority!._id, value: f.Priority!.options[0]!._id },
          { field: f.Areas!._id, value: [f.Areas!.options[1]!._id, f.Areas!.options[0]!._id] },
          { field: f.Approved!._id, value: true },
          { field: f.Reviewer!._id, value: member.userId },
          { field: f.Link!._id, value: 'https://example.test/spec' },
        ],
        { 'if-match': String(c.__v) },
      );
      assert.equal(res.statusCode, 200, res.body);
      const updated = res.json().card as Card;
      assertSchema(Card, updated);
      assert.equal(updated.__v, c.__v + 1, 'one change');
      assert.equal(fieldValue(updated, f.Notes!), 'spec first');
      assert.equal(fieldValue(updated, f.Estimate!), 3.5);
      assert.equal(fieldValue(updated, f.Deadline!), '2026-12-24T16:00:00.000Z');
      assert.equal(fieldValue(updated, f.Priority!), f.Priority!.options[0]!._id);
      assert.deepEqual(fieldValue(updated, f.Areas!), [f.Areas!.options[0]!._id, f.Areas!.options[1]!._id].sort());
      assert.equal(fieldValue(updated, f.Approved!), true);
      assert.equal(fieldValue(updated, f.Reviewer!), member.userId);
      assert.equal(fieldValue(updated, f.Link!), 'https://example.test/spec');
      assert.deepEqual((await card(c._id)).customFields, updated.customFields, 'Get Card Details');
      await assertReadModelTrue(c._id);
      const board = (await api('GET', `/api/v1/boards/${boardId}`)).json().board;
      const onBoard = board.lists[0].cards.find((x: Card) => x._id === c._id);
      assert.deepEqual(onBoard.customFields, updated.customFields, 'the board read');
      const face = (await api('GET', `/api/v1/cards/${c._id}/face`)).json();
      assert.deepEqual((face.card ?? face.face).customFields, updated.customFields, 'the card face');

      const events = await t.services.db
        .selectFrom('events')
        .select(['type', 'data'])
        .where('card_id', '=', c._id)
        .where('type', '=', 'card.custom_fields.set')
        .execute();
      assert.equal(events.length, 1);
      assert.equal(JSON.parse(events[0]!.data).values[f.Estimate!._id], 3.5);

      const cleared = await set(c._id, [
        { field: f.Notes!._id, value: null },
        { field: f.Approved!._id, value: false },
        { field: f.Areas!._id, value: [] },
      ]);
      assert.equal(cleared.statusCode, 200, cleared.body);
      const after = cleared.json().card as Card;
      assert.equal(fieldValue(after, f.Notes!), undefined);
      assert.equal(fieldValue(after, f.Approved!), undefined);
      assert.equal(fieldValue(after, f.Areas!), undefined);
      assert.equal(fieldValue(after, f.Estimate!), 3.5, 'values not named stay');
      await assertReadModelTrue(c._id);
    });

    it('refuses a bad value with a 400 naming it and its field, and writes nothing', async () => {
      const c = await newCard('Refused');
      const f = fields as Record<string, Field>;
      await set(c._id, [{ field: f.Estimate!._id, value: 1 }]);
      const before = await card(c._id);
      const otherBoard = (await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Elsewhere' })).json().board._id;
      const foreign = (await api('POST', `/api/v1/boards/${otherBoard}/custom-fields`, { name: 'Foreign', type: 'text' })).json().customField;
      const outsider = await addMember(t.services, { companyId: t.tenant.companyId, email: `outsider-${engine}@acme.test` });
      const cases: [unknown, string][] = [
        [{ field: f.Estimate!._id, value: 'three' }, 'Estimate'],
        [{ field: f.Priority!._id, value: f.Areas!.options[0]!._id }, 'Priority'],
        [{ field: f.Areas!._id, value: ['ffffffffffffffffffffffff'] }, 'Areas'],
        [{ field: f.Reviewer!._id, value: outsider.userId }, 'Reviewer'],
        [{ field: f.Reviewer!._id, value: other.userId }, 'Reviewer'],
        [{ field: f.Deadline!._id, value: 'next friday' }, 'Deadline'],
        [{ field: f.Link!._id, value: 'javascript:alert(1)' }, 'Link'],
        [{ field: f.Approved!._id, value: 'yes' }, 'Approved'],
        [{ field: foreign._id, value: 'x' }, ''],
      ];
      for (const [bad, name] of cases) {
        const res = await set(c._id, [{ field: f.Notes!._id, value: 'fine' }, bad as { field: string; value: unknown }]);
        assert.equal(res.statusCode, 400, `${JSON.stringify(bad)}: ${res.body}`);
        const detail = res.json().details.find((d: { field: string }) => d.field.startsWith('body.values[1]'));
        assert.ok(detail, res.body);
        if (name) assert.match(detail.message, new RegExp(name));
      }
      assert.equal(
        (
          await set(c._id, [
            { field: f.Estimate!._id, value: 2 },
            { field: f.Estimate!._id, value: 3 },
          ])
        ).statusCode,
        400,
        'a field twice',
      );
      assert.deepEqual(await card(c._id), before, 'nothing was written');
      const stale = await set(c._id, [{ field: f.Estimate!._id, value: 9 }], { 'if-match': String(before.__v - 1) });
      assert.equal(stale.statusCode, 412);
      assert.deepEqual(await card(c._id), before, 'a stale If-Match writes nothing');
    });

    it('renames and reorders a field; options removed are cleared from the cards that chose them', async () => {
      const res = await api('POST', `/api/v1/boards/${boardId}/custom-fields`, {
        name: 'Stage',
        type: 'select',
        position: 0,
        options: [
          { name: 'Draft', color: GREEN },
          { name: 'Done', color: RED },
        ],
      });
      const stage = res.json().customField as Field;
      assert.equal(stage.position, 0);
      const c = await newCard('Staged');
      const keep = await newCard('Kept');
      await set(c._id, [{ field: stage._id, value: stage.options[1]!._id }]);
      await set(keep._id, [{ field: stage._id, value: stage.options[0]!._id }]);
      const v = (await card(c._id)).__v;
      const renamed = await api('PATCH', `/api/v1/custom-fields/${stage._id}`, {
        name: 'Phase',
        position: 2,
        options: [
          { _id: stage.options[0]!._id, name: 'Drafting', color: RED },
          { name: 'Shipped', color: GREEN },
        ],
      });
      assert.equal(renamed.statusCode, 200, renamed.body);
      const phase = renamed.json().customField as Field;
      assert.equal(phase.name, 'Phase');
      assert.equal(phase.position, 2);
      assert.equal(phase.__v, stage.__v + 1);
      assert.deepEqual(
        phase.options.map((o) => o.name),
        ['Drafting', 'Shipped'],
      );
      const order = (await api('GET', `/api/v1/boards/${boardId}/custom-fields`)).json().customFields.map((f: Field) => [f.name, f.position]);
      assert.deepEqual(order.slice(0, 3), [
        ['Notes', 0],
        ['Estimate', 1],
        ['Phase', 2],
      ]);
      const cleared = await card(c._id);
      assert.equal(fieldValue(cleared, stage), undefined, 'the removed option is cleared');
      assert.equal(cleared.__v, v + 1, 'a change of the card');
      assert.equal(fieldValue(await card(keep._id), stage), stage.options[0]!._id, 'a kept option stays');
      await assertReadModelTrue(c._id);
      await assertReadModelTrue(keep._id);
      assert.equal((await api('PATCH', `/api/v1/custom-fields/${stage._id}`, { name: 'Notes' })).statusCode, 409);
    });

    it('converts values on a type change, and refuses (409, nothing changed) where one would not convert', async () => {
      const field = (await api('POST', `/api/v1/boards/${boardId}/custom-fields`, { name: 'Size', type: 'text' })).json().customField as Field;
      const a = await newCard('A');
      const b = await newCard('B');
      await set(a._id, [{ field: field._id, value: ' 42 ' }]);
      await set(b._id, [{ field: field._id, value: 'large' }]);
      const refused = await api('PATCH', `/api/v1/custom-fields/${field._id}`, { type: 'number' });
      assert.equal(refused.statusCode, 409, refused.body);
      assert.equal(refused.json().details[0].field, 'body.type');
      assert.equal(refused.json().details[0].cards, 1);
      assert.equal(fieldValue(await card(b._id), field), 'large', 'nothing converted');
      assert.equal((await api('GET', `/api/v1/boards/${boardId}/custom-fields`)).json().customFields.find((f: Field) => f._id === field._id).type, 'text');

      await set(b._id, [{ field: field._id, value: '7.5' }]);
      const vb = (await card(b._id)).__v;
      const converted = await api('PATCH', `/api/v1/custom-fields/${field._id}`, { type: 'number', unit: 'kg' });
      assert.equal(converted.statusCode, 200, converted.body);
      assert.equal(fieldValue(await card(a._id), field), 42);
      const bAfter = await card(b._id);
      assert.equal(fieldValue(bAfter, field), 7.5);
      assert.equal(bAfter.__v, vb + 1);
      await assertReadModelTrue(a._id);
      assert.equal((await api('PATCH', `/api/v1/custom-fields/${field._id}`, { type: 'checkbox' })).statusCode, 409);
      const back = await api('PATCH', `/api/v1/custom-fields/${field._id}`, { type: 'text' });
      assert.equal(back.statusCode, 200, back.body);
      assert.equal(back.json().customField.unit, '', 'a unit leaves with the number type');
      assert.equal(fieldValue(await card(a._id), field), '42');

      const multi = await api('PATCH', `/api/v1/custom-fields/${fields.Priority!._id}`, { type: 'multiselect' });
      assert.equal(multi.statusCode, 200, multi.body);
      const c = await newCard('Both');
      await set(c._id, [{ field: fields.Priority!._id, value: fields.Priority!.options.map((o) => o._id) }]);
      assert.equal((await api('PATCH', `/api/v1/custom-fields/${fields.Priority!._id}`, { type: 'select' })).statusCode, 409, 'two options chosen');
    });

    it('deletes a field, saying how many cards held a value, and clears them', async () => {
      const field = (await api('POST', `/api/v1/boards/${boardId}/custom-fields`, { name: 'Doomed', type: 'checkbox' })).json().customField as Field;
      const a = await newCard('A');
      const b = await newCard('B');
      await set(a._id, [{ field: field._id, value: true }]);
      await set(b._id, [{ field: field._id, value: true }]);
      const listed = (await api('GET', `/api/v1/boards/${boardId}/custom-fields`)).json().customFields.find((f: Field) => f._id === field._id);
      assert.equal(listed.cardsWithValue, 2, 'what a confirmation shows');
      const va = (await card(a._id)).__v;
      const res = await api('DELETE', `/api/v1/custom-fields/${field._id}`);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().clearedCards, 2);
      assert.equal(res.json().field._id, field._id);
      const after = await card(a._id);
      assert.equal(fieldValue(after, field), undefined);
      assert.equal(after.__v, va + 1);
      await assertReadModelTrue(a._id);
      assert.equal((await api('DELETE', `/api/v1/custom-fields/${field._id}`)).statusCode, 404);
      const events = await t.services.db.selectFrom('events').select('data').where('type', '=', 'custom_field.deleted').execute();
      assert.deepEqual(JSON.parse(events.at(-1)!.data).cards, [a._id, b._id].sort());
    });

    it('takes values along on a copy, and across boards to fields of the same name and type, naming what it dropped', async () => {
      const f = fields as Record<string, Field>;
      const source = await newCard('Travelling');
      const res = await set(source._id, [
        { field: f.Notes!._id, value: 'kept' },
        { field: f.Estimate!._id, value: 5 },
        { field: f.Link!._id, value: 'https://example.test' },
        { field: f.Areas!._id, value: [f.Areas!.options[0]!._id] },
      ]);
      assert.equal(res.statusCode, 200, res.body);
      const values = (res.json().card as Card).customFields;

      const copy = await api('POST', `/api/v1/cards/${source._id}/copy`, { list: listId });
      assert.equal(copy.statusCode, 201, copy.body);
      assert.deepEqual(copy.json().card.customFields, values, 'a copy on its board keeps every value');
      assert.deepEqual(copy.json().dropped.customFields, []);

      // another board: Notes (text) and Areas (multiselect, option API) match; Estimate is text there; Link is missing
      const target = (await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Target' })).json().board._id;
      const targetList = (await api('POST', '/api/v1/lists', { board: target, name: 'In' })).json().list._id;
      const notes = (await api('POST', `/api/v1/boards/${target}/custom-fields`, { name: 'Notes', type: 'text' })).json().customField;
      await api('POST', `/api/v1/boards/${target}/custom-fields`, { name: 'Estimate', type: 'text' });
      const areas = (
        await api('POST', `/api/v1/boards/${target}/custom-fields`, { name: 'Areas', type: 'multiselect', options: [{ name: 'API', color: GREEN }] })
      ).json().customField;
      const across = await api('POST', `/api/v1/cards/${source._id}/copy`, { list: targetList });
      assert.equal(across.statusCode, 201, across.body);
      const expected = [
        { field: notes._id, value: 'kept' },
        { field: areas._id, value: [areas.options[0]._id] },
      ].sort((a, b) => (a.field < b.field ? -1 : 1));
      assert.deepEqual(across.json().card.customFields, expected);
      assert.deepEqual(across.json().dropped.customFields, [f.Estimate!._id, f.Link!._id].sort());

      const moved = await api('PATCH', '/api/v1/cards/move-multi-team', {
        cards: [{ cardId: source._id, companyId: t.tenant.companyId, teamId: t.tenant.teamId }],
        target: { companyId: t.tenant.companyId, teamId: t.tenant.teamId, list: targetList },
      });
      assert.equal(moved.statusCode, 200, moved.body);
      assert.deepEqual(moved.json().cards[0].customFields, expected);
      assert.deepEqual(moved.json().dropped[0].customFields, [f.Estimate!._id, f.Link!._id].sort());
      await assertReadModelTrue(source._id);
      const rows = await t.services.db.selectFrom('card_field_values').select('field_id').where('card_id', '=', source._id).execute();
      assert.deepEqual(
        rows.map((r) => r.field_id),
        [notes._id],
        "no value of the old board's fields is left behind",
      );
    });

    it('finds cards by their values: field:value, field>3, field:empty, in search and the board filter', async () => {
      const board = (await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Searchable' })).json().board._id;
      const list = (await api('POST', '/api/v1/lists', { board, name: 'L' })).json().list._id;
      const points = (await api('POST', `/api/v1/boards/${board}/custom-fields`, { name: 'Points', type: 'number' })).json().customField;
      const tier = (
        await api('POST', `/api/v1/boards/${board}/custom-fields`, {
          name: 'Tier',
          type: 'select',
          options: [
            { name: 'Gold', color: GREEN },
            { name: 'Silver', color: RED },
          ],
        })
      ).json().customField;
      const due = (await api('POST', `/api/v1/boards/${board}/custom-fields`, { name: 'Launch', type: 'date' })).json().customField;
      const notes = (await api('POST', `/api/v1/boards/${board}/custom-fields`, { name: 'Notes', type: 'text' })).json().customField;
      const done = (await api('POST', `/api/v1/boards/${board}/custom-fields`, { name: 'Done', type: 'checkbox' })).json().customField;
      const owner = (await api('POST', `/api/v1/boards/${board}/custom-fields`, { name: 'Owner', type: 'person' })).json().customField;
      const small = await newCard('Small', list);
      const big = await newCard('Big', list);
      await newCard('Bare', list);
      await set(small._id, [
        { field: points._id, value: 2 },
        { field: tier._id, value: tier.options[1]._id },
        { field: due._id, value: '2026-03-01T00:00:00Z' },
      ]);
      await set(big._id, [
        { field: points._id, value: 8 },
        { field: tier._id, value: tier.options[0]._id },
        { field: due._id, value: '2026-09-01T00:00:00Z' },
        { field: notes._id, value: 'Ships 100% of the Widgets' },
        { field: done._id, value: true },
        { field: owner._id, value: t.tenant.userId },
      ]);
      const found = async (q: string) => {
        const res = await api('GET', `/api/v1/search?boardId=${board}&types=card&q=${encodeURIComponent(q)}`);
        assert.equal(res.statusCode, 200, `${q}: ${res.body}`);
        return res
          .json()
          .hits.map((h: { card: { name: string } }) => h.card.name)
          .sort();
      };
      assert.deepEqual(await found('Points>3'), ['Big']);
      assert.deepEqual(await found('points<=2'), ['Small']);
      assert.deepEqual(await found('Points:8'), ['Big']);
      assert.deepEqual(await found('Tier:silver'), ['Small']);
      assert.deepEqual(await found('Tier:"Gold"'), ['Big']);
      assert.deepEqual(await found('Points:empty'), ['Bare']);
      assert.deepEqual(await found('Launch>2026-06-01'), ['Big']);
      assert.deepEqual(await found('Points>1 Tier:gold'), ['Big']);
      assert.deepEqual(await found('Nosuchfield:x'), [], 'a name no field of the board has matches nothing');
      assert.deepEqual(await found('notes:widget'), ['Big'], 'a text contains the value, in any case');
      assert.deepEqual(await found('Notes:100%'), ['Big'], 'a % in the value is a character, not a wildcard');
      assert.deepEqual(await found('Notes:10%25'), [], 'and matches only itself');
      assert.deepEqual(await found('Done:yes'), ['Big']);
      assert.deepEqual(await found('Owner:"Olive Owner"'), ['Big'], 'a person by full name');
      assert.deepEqual(await found('Owner:owner@acme.test'), ['Big'], 'a person by email');
      assert.deepEqual(await found('Notes:empty'), ['Bare', 'Small']);
      assert.deepEqual(await found('Tier:gold Points:2'), [], 'every field filter must hold');
      // across boards, the fields are found by name on each hit's board
      const anywhere = async (q: string) =>
        (await api('GET', `/api/v1/search?types=card&q=${encodeURIComponent(q)}`))
          .json()
          .hits.filter((h: { board: { _id: string } }) => h.board._id === board)
          .map((h: { card: { name: string } }) => h.card.name)
          .sort();
      assert.deepEqual(await anywhere('Points>3'), ['Big']);
      assert.deepEqual(await anywhere('Tier:silver'), ['Small']);
      assert.deepEqual(await anywhere('Notes:widget'), ['Big']);
      assert.deepEqual(await anywhere('Points:empty'), ['Bare']);
      // two fields whose names differ in case only: a card of either matches
      const lower = (await api('POST', `/api/v1/boards/${board}/custom-fields`, { name: 'points', type: 'number' })).json().customField;
      await set((await newCard('Lower', list))._id, [{ field: lower._id, value: 9 }]);
      assert.deepEqual(await found('POINTS>3'), ['Big', 'Lower']);
    });

    it('the board filter pages its matches by time of change, ties by id, and follows a card to another board', async () => {
      const board = (await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Walked' })).json().board._id;
      const list = (await api('POST', '/api/v1/lists', { board, name: 'L' })).json().list._id;
      const size = (await api('POST', `/api/v1/boards/${board}/custom-fields`, { name: 'Size', type: 'number' })).json().customField;
      const kind = (await api('POST', `/api/v1/boards/${board}/custom-fields`, { name: 'Kind', type: 'select', options: [{ name: 'Bug', color: RED }] })).json()
        .customField;
      // 120 cards changed at 40 moments, three at each: more matches than a page, and ties
      const place = { _id: list, board, company: t.tenant.companyId, team: t.tenant.teamId };
      const cards = Array.from({ length: 120 }, (_, i) => {
        const at = new Date(Date.UTC(2026, 0, 1, 0, 0, Math.floor(i / 3))).toISOString();
        return cardRow(place, t.tenant.userId, `walked ${i}`, (i + 1) * 1024, { updated_at: at });
      });
      const db = t.services.db;
      await db.insertInto('cards').values(cards).execute();
      await db
        .insertInto('card_field_values')
        .values(cards.map((c, i) => ({ card_id: c.id, field_id: size._id, text_value: null, number_value: i % 4 })))
        .execute();
      await db
        .insertInto('card_field_choices')
        .values(cards.filter((_, i) => i % 2 === 0).map((c) => ({ card_id: c.id, field_id: kind._id, option_id: kind.options[0]._id })))
        .execute();
      const newestFirst = (list: typeof cards) =>
        [...list].sort((a, b) => (a.updated_at === b.updated_at ? (a.id < b.id ? 1 : -1) : a.updated_at < b.updated_at ? 1 : -1)).map((c) => c.id);
      const pages = async (q: string, onBoard = board) => {
        const ids: string[] = [];
        let cursor: string | undefined;
        do {
          const url = `/api/v1/search?${new URLSearchParams({ q, boardId: onBoard, types: 'card', limit: '25', ...(cursor ? { cursor } : {}) })}`;
          const res = await api('GET', url);
          assert.equal(res.statusCode, 200, res.body);
          ids.push(...res.json().hits.map((h: { _id: string }) => h._id));
          cursor = res.json().nextCursor ?? undefined;
        } while (cursor);
        return ids;
      };
      assert.deepEqual(await pages('Size>0'), newestFirst(cards.filter((_, i) => i % 4 > 0)), 'most of the board, newest first, ties by id');
      assert.deepEqual(await pages('Size:2'), newestFirst(cards.filter((_, i) => i % 4 === 2)), 'a quarter of it');
      assert.deepEqual(await pages('Kind:bug'), newestFirst(cards.filter((_, i) => i % 2 === 0)), 'an option');
      assert.deepEqual(await pages('Kind:bug Size:0'), newestFirst(cards.filter((_, i) => i % 4 === 0)), 'both');

      // a card moved to another board (its value carried to the field of that name there) is found there alone
      const target = (await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Walked to' })).json().board._id;
      const targetList = (await api('POST', '/api/v1/lists', { board: target, name: 'In' })).json().list._id;
      await api('POST', `/api/v1/boards/${target}/custom-fields`, { name: 'Size', type: 'number' });
      const moving = cards[7]!;
      const moved = await api('PATCH', '/api/v1/cards/move-multi-team', {
        cards: [{ cardId: moving.id, companyId: t.tenant.companyId, teamId: t.tenant.teamId }],
        target: { companyId: t.tenant.companyId, teamId: t.tenant.teamId, list: targetList },
      });
      assert.equal(moved.statusCode, 200, moved.body);
      assert.deepEqual(await pages('Size>0', target), [moving.id]);
      assert.deepEqual(await pages('Size>0'), newestFirst(cards.filter((c, i) => i % 4 > 0 && c !== moving)));
      assert.deepEqual(await indexedEntries(db), await expectedEntries(db), 'the entry holds its new board');

      // archived cards, and the cards of an archived board, are found by is:archived only
      const shelved = cards[5]!;
      assert.equal((await api('PATCH', '/api/v1/cards/archived', { cardIds: [shelved.id], status: true })).statusCode, 200);
      const live = cards.filter((c, i) => i % 4 > 0 && c !== moving);
      assert.deepEqual(await pages('Size>0'), newestFirst(live.filter((c) => c !== shelved)));
      assert.deepEqual(await pages('Size>0 is:archived'), [shelved.id]);
      assert.equal((await api('PATCH', `/api/v1/boards/${board}/archive`, {})).statusCode, 200);
      assert.deepEqual(await pages('Size>0'), []);
      assert.deepEqual(await pages('Size>0 is:archived'), newestFirst(live));
    });

    it('holds only the fields a value names: each value is checked against its field as it is when written', async () => {
      const number = (await api('POST', `/api/v1/boards/${boardId}/custom-fields`, { name: `Held ${engine}`, type: 'number' })).json().customField as Field;
      const c = await newCard('Held');
      const other = (await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Other board' })).json().board._id;
      const foreign = (await api('POST', `/api/v1/boards/${other}/custom-fields`, { name: 'Foreign one', type: 'number' })).json().customField as Field;
      const alone = await set(c._id, [{ field: foreign._id, value: 1 }]);
      assert.equal(alone.statusCode, 400, 'a field of another board, named alone');
      assert.equal(alone.json().details[0].field, 'body.values[0].field');
      if (engine !== 'postgres') return; // SQLite runs one write at a time: no interleaving to test

      // another field of the board held by a change: the value of this one does not wait for it
      const otherField = fields.Notes!;
      const unrelated = await holdLocks(t.services.db, (trx) => lockCustomField(trx, otherField._id));
      const written = await runAgainst(t.services.db, unrelated, () => set(c._id, [{ field: number._id, value: 4 }]));
      assert.equal(written.waited, false, 'the value waited for a change of another field');
      assert.equal(written.answer.statusCode, 200, written.answer.body);

      // its own field retyped meanwhile: the value waits, then is checked against the new type (a number is no text)
      const at = () => new Date().toISOString();
      const retyped = await holdLocks(
        t.services.db,
        (trx) => lockCustomField(trx, number._id),
        async (trx) => {
          // what a type change does: the values converted, then the type
          await trx.updateTable('card_field_values').set({ text_value: '4', number_value: null }).where('field_id', '=', number._id).execute();
          await updateCustomField(trx, number._id, { type: 'text' }, at());
        },
      );
      const refused = await runAgainst(t.services.db, retyped, () => set(c._id, [{ field: number._id, value: 5 }]));
      assert.ok(refused.waited, 'the value waited for the change of its field');
      const answer = refused.answer;
      assert.equal(answer.statusCode, 400, answer.body);
      assert.match(answer.json().details[0].message, /\(text\)/);
      const read = await api('GET', `/api/v1/cards/${c._id}`);
      assert.equal(read.statusCode, 200, read.body);
      assert.equal(fieldValue(read.json().card, number), '4', 'the value written before stays, converted');

      // its own field deleted meanwhile: refused as no field of the board, and no value is left of it
      const deleted = await holdLocks(t.services.db, (trx) => deleteCustomField(trx, number._id));
      const late = await runAgainst(t.services.db, deleted, () => set(c._id, [{ field: number._id, value: 'six' }]));
      assert.ok(late.waited, 'the value waited for the deletion of its field');
      const gone = late.answer;
      assert.equal(gone.statusCode, 400, gone.body);
      assert.equal(gone.json().details[0].field, 'body.values[0].field');
      const left = await t.services.db.selectFrom('card_field_values').select('card_id').where('field_id', '=', number._id).execute();
      assert.deepEqual(left, []);
    });

    it("answers 404 outside the caller's reach, for definitions and values", async () => {
      const c = await newCard('Private');
      const f = fields.Notes!;
      assert.equal((await other.api('GET', `/api/v1/boards/${boardId}/custom-fields`)).statusCode, 404);
      assert.equal((await other.api('POST', `/api/v1/boards/${boardId}/custom-fields`, { name: 'X', type: 'text' })).statusCode, 404);
      assert.equal((await other.api('PATCH', `/api/v1/custom-fields/${f._id}`, { name: 'X' })).statusCode, 404);
      assert.equal((await other.api('DELETE', `/api/v1/custom-fields/${f._id}`)).statusCode, 404);
      assert.equal((await other.api('PATCH', `/api/v1/cards/${c._id}/custom-fields`, { values: [{ field: f._id, value: 'x' }] })).statusCode, 404);
    });
  });
}

describeTiers('the custom field routes', {
  engines: ['sqlite'],
  given: async (t, api) => {
    const board = (await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Tiers' })).json().board._id as string;
    const list = (await api('POST', '/api/v1/lists', { board, name: 'L' })).json().list._id as string;
    const card = (await api('POST', '/api/v1/cards', { list, name: 'C' })).json().card._id as string;
    return { board, card };
  },
  calls: async (api, { board, card }) => {
    await api('GET', `/api/v1/boards/${board}/custom-fields`);
    const field = (await api('POST', `/api/v1/boards/${board}/custom-fields`, { name: 'F', type: 'text' })).json().customField._id;
    await api('PATCH', `/api/v1/custom-fields/${field}`, { name: 'G' });
    await api('PATCH', `/api/v1/cards/${card}/custom-fields`, { values: [{ field, value: 'v' }] });
    await api('DELETE', `/api/v1/custom-fields/${field}`);
  },
  expected: [
    ['GET /api/v1/boards/:boardId/custom-fields', 'very-low'],
    ['POST /api/v1/boards/:boardId/custom-fields', 'medium'],
    ['PATCH /api/v1/custom-fields/:fieldId', 'low'],
    ['PATCH /api/v1/cards/:cardId/custom-fields', 'low'],
    ['DELETE /api/v1/custom-fields/:fieldId', 'low'],
  ],
});
