import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type BootstrapResult, bootstrap } from '../../src/domain/account/bootstrap.ts';
import { Card } from '../../src/schemas/records.ts';
import { addMember, addTeam, seedBoard } from '../support/fixtures.ts';
import { apiClient, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { assertSchema } from '../support/schema.ts';

interface CardRecord {
  _id: string;
  name: string;
  __v: number;
  company: string;
  team: string;
  archived: { status: boolean };
}

interface Detail {
  index: number;
  field: string;
  code: string;
  message: string;
}

for (const engine of ENGINES) {
  describe(`bulk card edits: Archive Cards, Update and Archive Cards Multi Team [${engine}]`, () => {
    let t: TestApp;
    let api: ReturnType<typeof apiClient>;
    let rival: BootstrapResult;
    let teamB: string;
    /** A member of the tenant team only. */
    let member: { userId: string; apiKey: string };
    let listA: string;
    let listB: string;
    let rivalList: string;

    before(async () => {
      t = await buildTestApp(engine);
      api = apiClient(t, t.tenant.apiKey);
      rival = await bootstrap(t.services, { company: 'Rival', team: 'T', email: 'r@rival.test', fullName: 'R' });
      member = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'member@acme.test' });
      teamB = await addTeam(t.services, t.tenant.companyId, 'B', [t.tenant.userId]);
      listA = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
      listB = (await seedBoard(t.services, { ...t.tenant, teamId: teamB }, { lists: 1 })).listIds[0] as string;
      rivalList = (await seedBoard(t.services, rival, { lists: 1 })).listIds[0] as string;
    });
    after(() => t.dispose());

    const create = async (list: string, name: string, key = t.tenant.apiKey): Promise<CardRecord> => {
      const res = await apiClient(t, key)('POST', '/api/v1/cards', { list, name });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().card;
    };
    const createMany = (list: string, count: number, key?: string) => Promise.all(Array.from({ length: count }, (_, i) => create(list, `c${i}`, key)));
    /** What the database holds of the cards, in the order given. */
    const stored = async (ids: string[]) => {
      const rows = await t.services.db.selectFrom('cards').select(['id', 'name', 'archived', 'version', 'due_date']).where('id', 'in', ids).execute();
      return ids.map((id) => rows.find((r) => r.id === id));
    };
    const item = (card: CardRecord) => ({ cardId: card._id, companyId: card.company, teamId: card.team });
    const failing = (res: { json(): { details: Detail[] } }) => res.json().details.map((d) => [d.index, d.field, d.code]);

    describe('Archive Cards (PATCH /api/v1/cards/archived)', () => {
      it('archives the cards of one team (status defaults to true) and unarchives them, each one change', async () => {
        const cards = await createMany(listA, 3);
        const ids = [cards[2], cards[0], cards[1]].map((c) => (c as CardRecord)._id);
        const res = await api('PATCH', `/api/v1/cards/archived?companyId=${t.tenant.companyId}&teamId=${t.tenant.teamId}`, { cardIds: ids });
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        assert.equal(body.message, 'Cards archived');
        for (const c of body.cards) assertSchema(Card, c);
        assert.deepEqual(
          body.cards.map((c: CardRecord) => c._id),
          ids,
          'in request order',
        );
        assert.ok(body.cards.every((c: CardRecord) => c.archived.status && c.__v === 1));
        assert.deepEqual(
          (await stored(ids)).map((r) => [r?.archived, r?.version]),
          [
            [1, 1],
            [1, 1],
            [1, 1],
          ],
        );
        const board = (await api('GET', `/api/v1/lists/${listA}/cards`)).json();
        assert.ok(!board.cards.some((c: CardRecord) => ids.includes(c._id)));

        const back = await api('PATCH', '/api/v1/cards/archived', { cardIds: ids, status: false });
        assert.equal(back.statusCode, 200);
        assert.equal(back.json().message, 'Cards unarchived');
        assert.deepEqual(
          (await stored(ids)).map((r) => [r?.archived, r?.version]),
          [
            [0, 2],
            [0, 2],
            [0, 2],
          ],
        );
      });

      it('rejects the whole request when any card is out of reach, naming each failing index; nothing changes', async () => {
        const [a, b] = await createMany(listA, 2);
        const foreign = await create(rivalList, 'foreign', rival.apiKey);
        const ids = [(a as CardRecord)._id, foreign._id, (b as CardRecord)._id, 'ffffffffffffffffffffffff'];
        const res = await api('PATCH', '/api/v1/cards/archived', { cardIds: ids });
        assert.equal(res.statusCode, 404, res.body);
        assert.equal(res.json().code, 'not_found');
        assert.deepEqual(failing(res), [
          [1, 'body.cardIds[1]', 'not_found'],
          [3, 'body.cardIds[3]', 'not_found'],
        ]);
        assert.deepEqual(
          (await stored(ids.slice(0, 3))).map((r) => [r?.archived, r?.version]),
          [
            [0, 0],
            [0, 0],
            [0, 0],
          ],
        );

        // a member of the team reaches its cards only: another team's card is out of reach
        const other = await create(listB, 'other team');
        const byMember = await apiClient(t, member.apiKey)('PATCH', '/api/v1/cards/archived', { cardIds: [(a as CardRecord)._id, other._id] });
        assert.equal(byMember.statusCode, 404);
        assert.deepEqual(failing(byMember), [[1, 'body.cardIds[1]', 'not_found']]);
        // a scope the cards are not in
        const scoped = await api('PATCH', `/api/v1/cards/archived?teamId=${teamB}`, { cardIds: [(a as CardRecord)._id] });
        assert.equal(scoped.statusCode, 404);
        assert.deepEqual(
          (await stored([(a as CardRecord)._id, other._id])).map((r) => r?.version),
          [0, 0],
        );
      });

      it("takes the cards of one team only: another team's card fails its item (400)", async () => {
        const a = await create(listA, 'team A');
        const b = await create(listB, 'team B');
        const res = await api('PATCH', '/api/v1/cards/archived', { cardIds: [a._id, b._id] });
        assert.equal(res.statusCode, 400, res.body);
        assert.deepEqual(failing(res), [[1, 'body.cardIds[1]', 'validation_failed']]);
        assert.match(res.json().details[0].message, /archived-multi-team/);
        assert.deepEqual(
          (await stored([a._id, b._id])).map((r) => r?.version),
          [0, 0],
        );
        // failures of several kinds: 400, every one named
        const foreign = await create(rivalList, 'foreign', rival.apiKey);
        const mixed = await api('PATCH', '/api/v1/cards/archived', { cardIds: [a._id, foreign._id, b._id] });
        assert.equal(mixed.statusCode, 400);
        assert.deepEqual(failing(mixed), [
          [1, 'body.cardIds[1]', 'not_found'],
          [2, 'body.cardIds[2]', 'validation_failed'],
        ]);
      });

      it('refuses bad bodies with 400: repeated, malformed or too many ids, unknown fields', async () => {
        const [a, b] = await createMany(listA, 2);
        const cases: [unknown, string][] = [
          [{ cardIds: [(a as CardRecord)._id, (b as CardRecord)._id, (a as CardRecord)._id] }, 'body.cardIds[2]'],
          [{ cardIds: [(a as CardRecord)._id, 'nope'] }, 'body.cardIds[1]'],
          [{ cardIds: [] }, 'body.cardIds'],
          [{ cardIds: Array.from({ length: 101 }, (_, i) => i.toString(16).padStart(24, '0')) }, 'body.cardIds'],
          [{ cardIds: [(a as CardRecord)._id], status: 'yes' }, 'body.status'],
          [{ cardIds: [(a as CardRecord)._id], archived: true }, 'body.archived'],
          [{}, 'body.cardIds'],
        ];
        for (const [body, field] of cases) {
          const res = await api('PATCH', '/api/v1/cards/archived', body);
          assert.equal(res.statusCode, 400, JSON.stringify(body).slice(0, 80));
          assert.ok(
            res.json().details.some((d: Detail) => d.field === field),
            `${JSON.stringify(body).slice(0, 80)} → ${res.body}`,
          );
        }
        assert.deepEqual(
          (await stored([(a as CardRecord)._id, (b as CardRecord)._id])).map((r) => r?.version),
          [0, 0],
        );
      });

      it('takes 100 cards in one request', async () => {
        const cards = await createMany(listA, 100);
        const res = await api('PATCH', '/api/v1/cards/archived', { cardIds: cards.map((c) => c._id) });
        assert.equal(res.statusCode, 200);
        assert.equal(res.json().cards.length, 100);
      });

      it('parallel requests over the same cards in opposite orders all apply (no deadlock): each card + 1 per request', async () => {
        const cards = await createMany(listA, 10);
        const ids = cards.map((c) => c._id);
        const reversed = [...ids].reverse();
        const answers = await Promise.all(
          Array.from({ length: 6 }, (_, i) => api('PATCH', '/api/v1/cards/archived', { cardIds: i % 2 ? ids : reversed, status: i % 3 !== 0 })),
        );
        assert.deepEqual(
          answers.map((a) => a.statusCode),
          answers.map(() => 200),
          answers.map((a) => a.body.slice(0, 200)).join('\n'),
        );
        assert.ok((await stored(ids)).every((r) => r?.version === 6));
      });
    });

    describe('Update Cards Multi Team (PATCH /api/v1/cards/update-multi-team)', () => {
      it('updates cards of several teams, each with its own update, answering them in request order', async () => {
        const a = await create(listA, 'a');
        const b = await create(listB, 'b');
        const res = await api('PATCH', '/api/v1/cards/update-multi-team', {
          cards: [
            { ...item(b), update: { name: 'B!', dueDate: '2026-12-24T18:00:00+01:00' } },
            { ...item(a), update: { complete: { status: true }, workload: { value: 8 } } },
          ],
        });
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        assert.equal(body.message, 'Cards updated');
        for (const c of body.cards) assertSchema(Card, c);
        assert.deepEqual(
          body.cards.map((c: CardRecord) => c._id),
          [b._id, a._id],
        );
        assert.equal(body.cards[0].name, 'B!');
        assert.equal(body.cards[0].dueDate, '2026-12-24T17:00:00.000Z');
        assert.equal(body.cards[1].complete.status, true);
        assert.equal(body.cards[1].complete.setAt, body.cards[1].updatedAt);
        assert.deepEqual(body.cards[1].workload, { value: 8, measurement: 'hours' });
        assert.deepEqual(
          (await stored([a._id, b._id])).map((r) => r?.version),
          [1, 1],
        );
      });

      it("fails an item whose companyId/teamId are not its card's, or whose card is out of reach; nothing changes", async () => {
        const a = await create(listA, 'a');
        const b = await create(listB, 'b');
        const foreign = await create(rivalList, 'f', rival.apiKey);
        const res = await api('PATCH', '/api/v1/cards/update-multi-team', {
          cards: [
            { ...item(a), update: { name: 'x' } },
            { ...item(b), teamId: t.tenant.teamId, update: { name: 'x' } },
            { ...item(foreign), update: { name: 'x' } },
            { ...item(a), cardId: 'ffffffffffffffffffffffff', update: { name: 'x' } },
          ],
        });
        assert.equal(res.statusCode, 404, res.body);
        assert.deepEqual(failing(res), [
          [1, 'body.cards[1]', 'not_found'],
          [2, 'body.cards[2]', 'not_found'],
          [3, 'body.cards[3]', 'not_found'],
        ]);
        const byMember = await apiClient(t, member.apiKey)('PATCH', '/api/v1/cards/update-multi-team', {
          cards: [
            { ...item(a), update: { name: 'm' } },
            { ...item(b), update: { name: 'm' } },
          ],
        });
        assert.equal(byMember.statusCode, 404);
        assert.deepEqual(failing(byMember), [[1, 'body.cards[1]', 'not_found']]);
        assert.deepEqual(
          (await stored([a._id, b._id, foreign._id])).map((r) => [r?.name, r?.version]),
          [
            ['a', 0],
            ['b', 0],
            ['f', 0],
          ],
        );
      });

      it('checks each update as Update Card does (dates against the stored ones), naming the failing items', async () => {
        const a = await create(listA, 'a');
        const b = await create(listB, 'b');
        await api('PATCH', `/api/v1/cards/${b._id}`, { startDate: '2026-12-10T00:00:00Z' });
        const res = await api('PATCH', '/api/v1/cards/update-multi-team', {
          cards: [
            { ...item(a), update: { dueDate: '2026-12-01T00:00:00Z' } },
            { ...item(b), update: { dueDate: '2026-12-01T00:00:00Z' } },
          ],
        });
        assert.equal(res.statusCode, 400, res.body);
        assert.deepEqual(failing(res), [[1, 'body.cards[1]', 'validation_failed']]);
        assert.match(res.json().details[0].message, /dueDate/);
        assert.deepEqual(
          (await stored([a._id, b._id])).map((r) => [r?.due_date, r?.version]),
          [
            [null, 0],
            [null, 1],
          ],
        );
      });

      it('refuses bad bodies with 400: the update schema of Update Card, repeated cards, too many items', async () => {
        const a = await create(listA, 'a');
        const cases: [unknown, string][] = [
          [{ cards: [{ ...item(a), update: {} }] }, 'body.cards[0].update'],
          [{ cards: [{ ...item(a), update: { name: 'x', color: 'red' } }] }, 'body.cards[0].update.color'],
          [{ cards: [{ ...item(a), update: { name: '' } }] }, 'body.cards[0].update.name'],
          [{ cards: [{ ...item(a) }] }, 'body.cards[0].update'],
          [{ cards: [{ cardId: a._id, teamId: a.team, update: { name: 'x' } }] }, 'body.cards[0].companyId'],
          [{ cards: [{ ...item(a), teamId: 'x', update: { name: 'x' } }] }, 'body.cards[0].teamId'],
          [
            {
              cards: [
                { ...item(a), update: { name: 'x' } },
                { ...item(a), update: { name: 'y' } },
              ],
            },
            'body.cards[1]',
          ],
          [{ cards: Array.from({ length: 101 }, () => ({ ...item(a), update: { name: 'x' } })) }, 'body.cards'],
          [{ cards: [] }, 'body.cards'],
        ];
        for (const [body, field] of cases) {
          const res = await api('PATCH', '/api/v1/cards/update-multi-team', body);
          assert.equal(res.statusCode, 400, JSON.stringify(body).slice(0, 80));
          assert.ok(
            res.json().details.some((d: Detail) => d.field === field),
            `${JSON.stringify(body).slice(0, 120)} → ${res.body}`,
          );
        }
        assert.deepEqual(
          (await stored([a._id])).map((r) => [r?.name, r?.version]),
          [['a', 0]],
        );
      });
    });

    describe('Archive Cards Multi Team (PATCH /api/v1/cards/archived-multi-team)', () => {
      it('archives and unarchives cards of several teams; each card one change', async () => {
        const a = await create(listA, 'a');
        const b = await create(listB, 'b');
        const res = await api('PATCH', '/api/v1/cards/archived-multi-team', { cards: [item(a), item(b)] });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().message, 'Cards archived');
        assert.deepEqual(
          res.json().cards.map((c: CardRecord) => [c._id, c.archived.status, c.__v]),
          [
            [a._id, true, 1],
            [b._id, true, 1],
          ],
        );
        const back = await api('PATCH', '/api/v1/cards/archived-multi-team', { cards: [item(b), item(a)], status: false });
        assert.equal(back.statusCode, 200);
        assert.deepEqual(
          back.json().cards.map((c: CardRecord) => [c._id, c.archived.status]),
          [
            [b._id, false],
            [a._id, false],
          ],
        );
        assert.deepEqual(
          (await stored([a._id, b._id])).map((r) => [r?.archived, r?.version]),
          [
            [0, 2],
            [0, 2],
          ],
        );
      });

      it('fails items out of reach or with the wrong company/team, and bad bodies; nothing changes', async () => {
        const a = await create(listA, 'a');
        const b = await create(listB, 'b');
        const res = await api('PATCH', '/api/v1/cards/archived-multi-team', { cards: [item(a), { ...item(b), companyId: rival.companyId }] });
        assert.equal(res.statusCode, 404);
        assert.deepEqual(failing(res), [[1, 'body.cards[1]', 'not_found']]);
        const foreign = await create(rivalList, 'f', rival.apiKey);
        const outside = await api('PATCH', '/api/v1/cards/archived-multi-team', { cards: [item(foreign)] });
        assert.equal(outside.statusCode, 404);
        for (const [body, field] of [
          [{ cards: [item(a), item(a)] }, 'body.cards[1]'],
          [{ cards: [{ ...item(a), update: { name: 'x' } }] }, 'body.cards[0].update'],
          [{ cards: [item(a)], status: 1 }, 'body.status'],
          [{ cardIds: [a._id] }, 'body.cards'],
        ] as const) {
          const bad = await api('PATCH', '/api/v1/cards/archived-multi-team', body);
          assert.equal(bad.statusCode, 400, JSON.stringify(body));
          assert.ok(
            bad.json().details.some((d: Detail) => d.field === field),
            `${JSON.stringify(body)} → ${bad.body}`,
          );
        }
        assert.deepEqual(
          (await stored([a._id, b._id, foreign._id])).map((r) => [r?.archived, r?.version]),
          [
            [0, 0],
            [0, 0],
            [0, 0],
          ],
        );
      });
    });
  });
}
