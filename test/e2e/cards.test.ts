import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bootstrap } from '../../src/domain/account/bootstrap.ts';
import { Card } from '../../src/schemas/records.ts';
import { addMember, addTeam, seedBoard } from '../support/fixtures.ts';
import { bearer, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { assertSchema } from '../support/schema.ts';

for (const engine of ENGINES) {
  describe(`Create Card and Get Card Details [${engine}]`, () => {
    let t: TestApp;
    let listId: string;
    before(async () => {
      t = await buildTestApp(engine);
      listId = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
    });
    after(() => t.dispose());

    const create = (body: Record<string, unknown>, token = t.tenant.apiKey) =>
      t.app.inject({ method: 'POST', url: '/api/v1/cards', headers: bearer(token), payload: body });
    const get = (cardId: string, token = t.tenant.apiKey, query = '') =>
      t.app.inject({ method: 'GET', url: `/api/v1/cards/${cardId}${query}`, headers: bearer(token) });

    it('creates a card (201) with the full record, in the list and board of `list`', async () => {
      const res = await create({
        list: listId,
        name: ' Write spec ',
        description: 'd',
        startDate: '2026-12-01T09:00:00Z',
        dueDate: '2026-12-02T09:00:00.000Z',
      });
      assert.equal(res.statusCode, 201, res.body);
      const card = res.json().card;
      assertSchema(Card, card);
      assert.equal(card.name, 'Write spec');
      assert.equal(card.list, listId);
      assert.equal(card.company, t.tenant.companyId);
      assert.equal(card.team, t.tenant.teamId);
      assert.equal(card.creator, t.tenant.userId);
      assert.equal(card.startDate, '2026-12-01T09:00:00.000Z');
      assert.equal(card.__v, 0);
    });

    it('places cards at top, bottom or an index', async () => {
      const list = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
      const a = (await create({ list, name: 'a' })).json().card;
      const b = (await create({ list, name: 'b', position: 'top' })).json().card;
      const c = (await create({ list, name: 'c', position: 1 })).json().card;
      const d = (await create({ list, name: 'd', position: 'bottom' })).json().card;
      const order = [a, b, c, d].sort((x, y) => x.position - y.position).map((x) => x.name);
      assert.deepEqual(order, ['b', 'c', 'a', 'd']);
    });

    it('refuses bad input with 400 and a foreign list with 404', async () => {
      for (const body of [
        { name: 'no list' },
        { list: listId },
        { list: listId, name: '' },
        { list: 'xyz', name: 'n' },
        { list: listId, name: 'n', color: 'red' },
        { list: listId, name: 'n', dueDate: 'tomorrow' },
        { list: listId, name: 'n', startDate: '2026-12-02T00:00:00Z', dueDate: '2026-12-01T00:00:00Z' },
        { list: listId, name: 'n', position: -1 },
      ]) {
        const res = await create(body);
        assert.equal(res.statusCode, 400, JSON.stringify(body));
        assert.equal(res.json().code, 'validation_failed');
      }
      const other = await bootstrap(t.services, { company: 'O', team: 'T', email: 'o@o.test', fullName: 'O' });
      const res = await create({ list: listId, name: 'sneaky' }, other.apiKey);
      assert.equal(res.statusCode, 404);
      const count = await t.services.db
        .selectFrom('cards')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('name', '=', 'sneaky')
        .executeTakeFirstOrThrow();
      assert.equal(Number(count.n), 0);
    });

    it('Get Card Details adds the caller to seen once', async () => {
      const card = (await create({ list: listId, name: 'seen' })).json().card;
      assert.deepEqual(card.seen, []);
      const first = await get(card._id);
      assert.equal(first.statusCode, 200);
      assert.deepEqual(first.json().card.seen, [t.tenant.userId]);
      assert.equal(first.json().card.__v, 1);
      const second = await get(card._id, t.tenant.apiKey, `?companyId=${t.tenant.companyId}&teamId=${t.tenant.teamId}`);
      assert.deepEqual(second.json().card.seen, [t.tenant.userId]);
      assert.equal(second.json().card.__v, 1);
    });

    it("hides another company's card (404) and checks the scope", async () => {
      const card = (await create({ list: listId, name: 'private' })).json().card;
      const other = await bootstrap(t.services, { company: 'P', team: 'T', email: 'p@p.test', fullName: 'P' });
      assert.equal((await get(card._id, other.apiKey)).statusCode, 404);
      assert.equal((await get(card._id, t.tenant.apiKey, `?teamId=${other.teamId}`)).statusCode, 404);
      assert.equal((await get('ffffffffffffffffffffffff')).statusCode, 404);
      assert.equal((await get('FFFF')).statusCode, 400);
      const row = await t.services.db.selectFrom('card_seen').select('user_id').where('card_id', '=', card._id).execute();
      assert.deepEqual(row, []);
    });

    it('is a 404 for a member of another team of the company, creating nothing and adding nobody to seen', async () => {
      const card = (await create({ list: listId, name: 'team only' })).json().card;
      const outsider = await addMember(t.services, { companyId: t.tenant.companyId, email: 'outsider@acme.test' });
      await addTeam(t.services, t.tenant.companyId, 'Elsewhere', [outsider.userId]);
      const created = await create({ list: listId, name: 'from outside' }, outsider.apiKey);
      assert.equal(created.statusCode, 404, created.body);
      assert.equal(created.json().code, 'not_found');
      const count = await t.services.db
        .selectFrom('cards')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('name', '=', 'from outside')
        .executeTakeFirstOrThrow();
      assert.equal(Number(count.n), 0);
      const details = await get(card._id, outsider.apiKey);
      assert.equal(details.statusCode, 404, details.body);
      assert.equal(details.json().code, 'not_found');
      const row = await t.services.db.selectFrom('cards').select('version').where('id', '=', card._id).executeTakeFirstOrThrow();
      assert.equal(row.version, 0);
      assert.deepEqual(await t.services.db.selectFrom('card_seen').select('user_id').where('card_id', '=', card._id).execute(), []);
    });

    it('parallel first looks at a card add the caller to seen once: one change', async () => {
      const card = (await create({ list: listId, name: 'looked at' })).json().card;
      const answers = await Promise.all(Array.from({ length: 8 }, () => get(card._id)));
      assert.deepEqual(
        answers.map((a) => a.statusCode),
        answers.map(() => 200),
      );
      assert.ok(answers.every((a) => a.json().card.seen.length === 1 && a.json().card.seen[0] === t.tenant.userId));
      const row = await t.services.db.selectFrom('cards').select('version').where('id', '=', card._id).executeTakeFirstOrThrow();
      assert.equal(row.version, 1);
      assert.equal((await get(card._id)).json().card.__v, 1);
    });

    /** The list's cards as the database orders them: [name, position, __v]. */
    const rowsOf = async (list: string) =>
      (
        await t.services.db.selectFrom('cards').select(['name', 'position', 'version']).where('list_id', '=', list).orderBy('position').orderBy('id').execute()
      ).map((r) => [r.name, r.position, r.version] as const);

    it('counts only unarchived cards in `position`, as Reorder Card Position does', async () => {
      const list = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
      const hidden = (await create({ list, name: 'hidden' })).json().card;
      await create({ list, name: 'b' });
      await create({ list, name: 'c' });
      const archive = await t.app.inject({ method: 'PATCH', url: `/api/v1/cards/${hidden._id}/archive`, headers: bearer(t.tenant.apiKey) });
      assert.equal(archive.statusCode, 200, archive.body);
      // the client sees b, c: index 1 is between them
      const res = await create({ list, name: 'new', position: 1 });
      assert.equal(res.statusCode, 201, res.body);
      assert.deepEqual(
        (await rowsOf(list)).map(([name]) => name),
        ['hidden', 'b', 'new', 'c'],
      );
    });

    it('renumbers the list when neighbours get too close; each renumbered card is changed (__v + 1)', async () => {
      const list = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
      const a = (await create({ list, name: 'a' })).json().card;
      const b = (await create({ list, name: 'b' })).json().card;
      // squeeze a and b together, as many insertions between them would
      await t.services.db.updateTable('cards').set({ position: 1024 }).where('id', '=', a._id).execute();
      await t.services.db.updateTable('cards').set({ position: 1024.000_000_1 }).where('id', '=', b._id).execute();
      const res = await create({ list, name: 'between', position: 1 });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().card.__v, 0);
      assert.deepEqual(await rowsOf(list), [
        ['a', 1024, 1],
        ['between', 2048, 0],
        ['b', 3072, 1],
      ]);
    });

    it('10 parallel creations at the top of one list get 10 distinct positions in a strict order', async () => {
      const list = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
      await create({ list, name: 'first' });
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => create({ list, name: `p${i}`, position: 'top' })));
      assert.deepEqual(
        answers.map((a) => a.statusCode),
        answers.map(() => 201),
      );
      const rows = await rowsOf(list);
      const positions = rows.map(([, position]) => position);
      assert.equal(new Set(positions).size, 11, `positions ${positions.join(', ')}`);
      assert.deepEqual(rows.at(-1)?.[0], 'first');
      // each answer shows the position it was given, and every one of them is still in place
      assert.deepEqual(
        answers.map((a) => a.json().card.position).sort((x, y) => x - y),
        positions.slice(0, 10),
      );
    });
  });
}
