import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/domain/shared/ids.ts';
import { BulkCardsAnswer, CopyCardAnswer } from '../../src/schemas/card-copies.ts';
import { ErrorBody } from '../../src/schemas/common.ts';
import { addCardMember, addChecklist, addFileAttachment } from '../support/card-parts.ts';
import { addMember, addTeam, seedBoard } from '../support/fixtures.ts';
import { type Api, apiClient, buildTestApp, ENGINE_STORES, type OtherCompany, otherCompany, recordingLimiter, type TestApp } from '../support/harness.ts';
import { storedObjects } from '../support/s3.ts';
import { assertSchema } from '../support/schema.ts';
import { tiersOf } from '../support/tiers.ts';

for (const [engine, store] of ENGINE_STORES) {
  describe(`card copy and move routes [${engine}, ${store}]`, () => {
    let t: TestApp;
    let api: Api;
    let memberApi: Api; // a member of Core only
    let other: OtherCompany;
    let opsTeam: string;
    let alice: string;
    let core: { companyId: string; teamId: string };
    let ops: { companyId: string; teamId: string };
    let boardA: Awaited<ReturnType<typeof seedBoard>>;
    let boardOps: Awaited<ReturnType<typeof seedBoard>>;
    const limiter = recordingLimiter();

    before(async () => {
      t = await buildTestApp(engine, { store, rateLimiter: limiter });
      api = apiClient(t, t.tenant.apiKey);
      other = await otherCompany(t);
      core = { companyId: t.tenant.companyId, teamId: t.tenant.teamId };
      const member = await addMember(t.services, { ...core, teamIds: [core.teamId], email: 'm@acme.test', fullName: 'Member' });
      memberApi = apiClient(t, member.apiKey);
      alice = (await addMember(t.services, { ...core, teamIds: [core.teamId], email: 'alice@acme.test', fullName: 'Alice' })).userId;
      opsTeam = await addTeam(t.services, core.companyId, 'Ops', [t.tenant.userId, alice]);
      ops = { companyId: core.companyId, teamId: opsTeam };
      boardA = await seedBoard(t.services, t.tenant, { lists: 2, labels: 1 });
      boardOps = await seedBoard(t.services, { ...t.tenant, teamId: opsTeam }, { lists: 1 });
    });
    after(() => t.dispose());

    const listA = (i: number) => boardA.listIds[i] as string;
    const listOps = () => boardOps.listIds[0] as string;

    async function newCard(name: string, list = listA(0)) {
      const res = await api('POST', '/api/v1/cards', { list, name });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().card as { _id: string; company: string; team: string; __v: number; list: string; position: number };
    }

    /** A card with a label, a member, a checklist and a file: parts a copy or move carries or drops. */
    async function richCard(name: string) {
      const card = await newCard(name);
      assert.equal((await api('POST', `/v2/cards/${card._id}/labels`, { labels: boardA.labelIds })).statusCode, 200);
      const owner = { id: card._id, company_id: card.company, team_id: card.team };
      await addCardMember(t.services, card._id, alice);
      await addChecklist(t.services, owner, t.tenant.userId, 'Steps', [{ name: 'a', done: true }, { name: 'b' }]);
      await addFileAttachment(t.services, owner, t.tenant.userId, 'spec', 'spec bytes');
      return (await api('GET', `/api/v1/cards/${card._id}`)).json().card as typeof card & { seen: string[] };
    }

    /** What the database holds about cards: to show that a rejected request changed nothing. */
    async function dbState() {
      const db = t.services.db;
      return {
        cards: await db.selectFrom('cards').select(['id', 'list_id', 'team_id', 'position', 'version']).orderBy('id').execute(),
        labels: await db.selectFrom('card_labels').select(['card_id', 'label_id']).orderBy('card_id').orderBy('label_id').execute(),
        members: await db.selectFrom('card_members').select(['card_id', 'user_id']).orderBy('card_id').orderBy('user_id').execute(),
        attachments: (
          await db
            .selectFrom('attachments')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
        files: await storedObjects(t.services.files),
      };
    }

    function assertError(res: Awaited<ReturnType<Api>>, status: number, fields?: string[], what = '') {
      assert.equal(res.statusCode, status, `${what}: ${res.body}`);
      const body = res.json();
      assertSchema(ErrorBody, body, what);
      if (fields)
        assert.deepEqual(
          body.details?.map((d: { field: string }) => d.field),
          fields,
          what,
        );
    }

    describe('Copy Card: POST /api/v1/cards/:cardId/copy', () => {
      it('answers 201 {message, card, dropped} with the copy', async () => {
        const source = await richCard('Original');
        const res = await api('POST', `/api/v1/cards/${source._id}/copy?companyId=${core.companyId}&teamId=${core.teamId}`, {
          list: listA(1),
          name: 'Copy of Original',
          position: 'top',
          keep: { members: false },
        });
        assert.equal(res.statusCode, 201, res.body);
        const body = res.json();
        assertSchema(CopyCardAnswer, body);
        assert.equal(typeof body.message, 'string');
        assert.notEqual(body.card._id, source._id);
        assert.equal(body.card.name, 'Copy of Original');
        assert.equal(body.card.list, listA(1));
        assert.equal(body.card.__v, 0);
        assert.equal(body.card.creator, t.tenant.userId);
        assert.deepEqual(body.card.members, []);
        assert.equal(body.card.labels.length, 1);
        assert.deepEqual(body.card.allChecklistItemsCount, { completed: 1, total: 2 });
        assert.equal(body.card.attachments.length, 1);
        assert.deepEqual(body.card.seen, []);
        assert.deepEqual(body.dropped, { cardId: body.card._id, labels: [], members: [], checklistItemMembers: [], customFields: [] });
        // the copy's file downloads with its own bytes
        const download = await api('GET', body.card.attachments[0].url);
        assert.equal(download.statusCode, 200);
        assert.equal(download.body, 'spec bytes');
        // and it is a card like any other
        assert.equal((await api('GET', `/api/v1/cards/${body.card._id}`)).json().card.name, 'Copy of Original');
      });

      it('onto another team names what the copy dropped', async () => {
        const source = await richCard('Across');
        const memberId = (await addMember(t.services, { ...core, teamIds: [core.teamId], email: 'core-only@acme.test' })).userId;
        await addCardMember(t.services, source._id, memberId);
        const res = await api('POST', `/api/v1/cards/${source._id}/copy`, { list: listOps() });
        assert.equal(res.statusCode, 201, res.body);
        const body = res.json();
        assertSchema(CopyCardAnswer, body);
        assert.equal(body.card.team, opsTeam);
        assert.deepEqual(
          body.card.members.map((m: { _id: string }) => m._id),
          [alice],
        );
        assert.deepEqual(body.dropped, { cardId: body.card._id, labels: boardA.labelIds, members: [memberId], checklistItemMembers: [], customFields: [] });
      });

      it('rejects bad input with 400 naming the field, and writes nothing', async () => {
        const source = await newCard('Strict');
        const before = await dbState();
        const cases: [string, string, unknown, string][] = [
          ['missing list', source._id, {}, 'body.list'],
          ['malformed list', source._id, { list: 'nope' }, 'body.list'],
          ['blank name', source._id, { list: listA(0), name: '   ' }, 'body.name'],
          ['negative position', source._id, { list: listA(0), position: -1 }, 'body.position'],
          ['word position', source._id, { list: listA(0), position: 'middle' }, 'body.position'],
          ['unknown keep flag', source._id, { list: listA(0), keep: { comments: true } }, 'body.keep.comments'],
          ['keep flag not boolean', source._id, { list: listA(0), keep: { labels: 'yes' } }, 'body.keep.labels'],
          ['unknown field', source._id, { list: listA(0), board: boardA.boardId }, 'body.board'],
          ['malformed card id', '123', { list: listA(0) }, 'params.cardId'],
        ];
        for (const [what, cardId, payload, field] of cases) {
          const res = await api('POST', `/api/v1/cards/${cardId}/copy`, payload);
          assertError(res, 400, undefined, what);
          assert.ok(
            res.json().details.some((d: { field: string }) => d.field === field),
            `${what}: ${res.body}`,
          );
        }
        assertError(await api('POST', `/api/v1/cards/${source._id}/copy?teamId=zz`, { list: listA(0) }), 400, undefined, 'malformed scope');
        assert.deepEqual(await dbState(), before);
      });

      it("is a 404 outside the caller's reach, and writes nothing", async () => {
        const source = await richCard('Guarded');
        const foreignList = (await seedBoard(t.services, other, { lists: 1 })).listIds[0] as string;
        const opsCard = await newCard('Ops only', listOps());
        const before = await dbState();
        const attempts: [string, Awaited<ReturnType<Api>>, string[] | undefined][] = [
          ['another company', await other.api('POST', `/api/v1/cards/${source._id}/copy`, { list: foreignList }), undefined],
          [
            'another company, scope named',
            await other.api('POST', `/api/v1/cards/${source._id}/copy?companyId=${core.companyId}`, { list: listA(0) }),
            undefined,
          ],
          ['a list of another company', await api('POST', `/api/v1/cards/${source._id}/copy`, { list: foreignList }), ['body.list']],
          ['scope of another team', await api('POST', `/api/v1/cards/${source._id}/copy?teamId=${opsTeam}`, { list: listA(0) }), undefined],
          ['scope of another company', await api('POST', `/api/v1/cards/${source._id}/copy?companyId=${other.companyId}`, { list: listA(0) }), undefined],
          ['a team the member is not in', await memberApi('POST', `/api/v1/cards/${opsCard._id}/copy`, { list: listA(0) }), undefined],
          ['onto a list of a team the member is not in', await memberApi('POST', `/api/v1/cards/${source._id}/copy`, { list: listOps() }), ['body.list']],
          ['an unknown card', await api('POST', `/api/v1/cards/${newId()}/copy`, { list: listA(0) }), undefined],
        ];
        for (const [what, res, fields] of attempts) {
          assertError(res, 404, fields, what);
          assert.equal(res.json().code, 'not_found');
        }
        assert.deepEqual(await dbState(), before);
      });
    });

    describe('Copy Cards: PATCH /api/v1/cards/copy', () => {
      it('answers {message, cards, dropped}: the copies in request order at the bottom of the list', async () => {
        const [a, b] = [await richCard('A'), await newCard('B')];
        const res = await api('PATCH', `/api/v1/cards/copy?teamId=${core.teamId}`, { cardIds: [b._id, a._id], list: listA(1) });
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        assertSchema(BulkCardsAnswer, body);
        assert.equal(typeof body.message, 'string');
        assert.deepEqual(
          body.cards.map((c: { name: string }) => c.name),
          ['B', 'A'],
        );
        assert.ok(body.cards[0].position < body.cards[1].position);
        assert.deepEqual(
          body.cards.map((c: { __v: number }) => c.__v),
          [0, 0],
        );
        assert.deepEqual(body.dropped, []);
        assert.equal(body.cards[1].labels.length, 1, 'same board: labels kept');
        const order = await t.services.db.selectFrom('cards').select('id').where('list_id', '=', listA(1)).orderBy('position').orderBy('id').execute();
        assert.deepEqual(
          order.slice(-2).map((c) => c.id),
          body.cards.map((c: { _id: string }) => c._id),
          'the copies are the bottom of the list',
        );
      });

      it('rejects bad input and cards out of reach, naming each failing item, and writes nothing', async () => {
        const mine = await newCard('Mine');
        const opsCard = await newCard('Ops', listOps());
        const foreign = (await seedBoard(t.services, other, { lists: 1 })).listIds[0] as string;
        const before = await dbState();
        const many = Array.from({ length: 101 }, () => newId());
        const cases: [string, Awaited<ReturnType<Api>>, number, string[] | undefined][] = [
          ['no cards', await api('PATCH', '/api/v1/cards/copy', { cardIds: [], list: listA(0) }), 400, ['body.cardIds']],
          ['101 cards', await api('PATCH', '/api/v1/cards/copy', { cardIds: many, list: listA(0) }), 400, ['body.cardIds']],
          ['a card twice', await api('PATCH', '/api/v1/cards/copy', { cardIds: [mine._id, mine._id], list: listA(0) }), 400, ['body.cardIds[1]']],
          ['a malformed id', await api('PATCH', '/api/v1/cards/copy', { cardIds: [mine._id, 'x'], list: listA(0) }), 400, ['body.cardIds[1]']],
          ['no list', await api('PATCH', '/api/v1/cards/copy', { cardIds: [mine._id] }), 400, ['body.list']],
          ['unknown field', await api('PATCH', '/api/v1/cards/copy', { cardIds: [mine._id], list: listA(0), keep: {} }), 400, ['body.keep']],
          ['a card of another team', await api('PATCH', '/api/v1/cards/copy', { cardIds: [mine._id, opsCard._id], list: listA(0) }), 400, ['body.cardIds[1]']],
          [
            'unknown and foreign cards',
            await api('PATCH', '/api/v1/cards/copy', { cardIds: [newId(), mine._id, newId()], list: listA(0) }),
            404,
            ['body.cardIds[0]', 'body.cardIds[2]'],
          ],
          ['a foreign list', await api('PATCH', '/api/v1/cards/copy', { cardIds: [mine._id], list: foreign }), 404, ['body.list']],
          [
            'scope of another team',
            await api('PATCH', `/api/v1/cards/copy?teamId=${opsTeam}`, { cardIds: [mine._id], list: listOps() }),
            404,
            ['body.cardIds[0]'],
          ],
          [
            'scope not matching the list',
            await api('PATCH', `/api/v1/cards/copy?teamId=${opsTeam}`, { cardIds: [opsCard._id], list: listA(0) }),
            404,
            ['body.list'],
          ],
          ['another company', await other.api('PATCH', '/api/v1/cards/copy', { cardIds: [mine._id], list: foreign }), 404, ['body.cardIds[0]']],
        ];
        for (const [what, res, status, fields] of cases) assertError(res, status, fields, what);
        const bulk = cases[7]?.[1].json();
        assert.deepEqual(
          bulk.details.map((d: { index: number; code: string }) => [d.index, d.code]),
          [
            [0, 'not_found'],
            [2, 'not_found'],
          ],
        );
        assert.deepEqual(await dbState(), before);
      });
    });

    describe('Copy Cards Multi Team and Move Cards Multi Team', () => {
      const item = (card: { _id: string; company: string; team: string }) => ({ cardId: card._id, companyId: card.company, teamId: card.team });

      it('copy-multi-team copies cards of several teams to the target list, naming what the copies dropped', async () => {
        const [a, b] = [await richCard('Core card'), await newCard('Ops card', listOps())];
        const res = await api('PATCH', '/api/v1/cards/copy-multi-team', { cards: [item(a), item(b)], target: { ...ops, list: listOps() } });
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        assertSchema(BulkCardsAnswer, body);
        assert.deepEqual(
          body.cards.map((c: { name: string; team: string; __v: number }) => [c.name, c.team, c.__v]),
          [
            ['Core card', opsTeam, 0],
            ['Ops card', opsTeam, 0],
          ],
        );
        assert.deepEqual(body.dropped, [{ cardId: body.cards[0]._id, labels: boardA.labelIds, members: [], checklistItemMembers: [], customFields: [] }]);
        assert.equal((await api('GET', `/api/v1/cards/${a._id}`)).json().card.labels.length, 1, 'the source keeps its labels');
      });

      it('move-multi-team moves the cards (answering them with __v + 1) and names what they dropped', async () => {
        const [a, b] = [await richCard('Mover'), await newCard('Ops mover', listOps())];
        const res = await api('PATCH', '/api/v1/cards/move-multi-team', { cards: [item(a), item(b)], target: { ...core, list: listA(1) } });
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        assertSchema(BulkCardsAnswer, body);
        assert.deepEqual(
          body.cards.map((c: { _id: string }) => c._id),
          [a._id, b._id],
        );
        assert.deepEqual(
          body.cards.map((c: { list: string; team: string }) => [c.list, c.team]),
          [
            [listA(1), core.teamId],
            [listA(1), core.teamId],
          ],
        );
        assert.deepEqual(
          body.cards.map((c: { __v: number }) => c.__v),
          [a.__v + 1, b.__v + 1],
        );
        assert.equal(body.cards[0].labels.length, 1, 'same board: labels kept');
        assert.deepEqual(body.dropped, []);
        const back = await api('PATCH', '/api/v1/cards/move-multi-team', { cards: [item(body.cards[0])], target: { ...ops, list: listOps() } });
        assert.equal(back.statusCode, 200, back.body);
        assert.deepEqual(back.json().dropped, [{ cardId: a._id, labels: boardA.labelIds, members: [], checklistItemMembers: [], customFields: [] }]);
        assert.equal(back.json().cards[0].team, opsTeam);
        // the moved file still downloads, at the card's URL
        const download = await api('GET', back.json().cards[0].attachments[0].url);
        assert.equal(download.body, 'spec bytes');
      });

      for (const path of ['copy-multi-team', 'move-multi-team'] as const) {
        it(`${path}: bad input, items out of reach and wrong targets are 4xx naming each failing part; nothing changes`, async () => {
          const mine = await newCard(`${path} mine`);
          const opsCard = await newCard(`${path} ops`, listOps());
          const foreignList = (await seedBoard(t.services, other, { lists: 1 })).listIds[0] as string;
          const foreignCard = (await other.api('POST', '/api/v1/cards', { list: foreignList, name: 'theirs' })).json().card;
          const before = await dbState();
          const send = (body: unknown, client = api) => client('PATCH', `/api/v1/cards/${path}`, body);
          const target = { ...core, list: listA(1) };
          const many = Array.from({ length: 101 }, () => ({ cardId: newId(), ...core }));
          const cases: [string, Awaited<ReturnType<Api>>, number, string[] | undefined][] = [
            ['no cards', await send({ cards: [], target }), 400, ['body.cards']],
            ['101 cards', await send({ cards: many, target }), 400, ['body.cards']],
            ['no target', await send({ cards: [item(mine)] }), 400, ['body.target']],
            ['target without a list', await send({ cards: [item(mine)], target: core }), 400, ['body.target.list']],
            ['item without its team', await send({ cards: [{ cardId: mine._id, companyId: core.companyId }], target }), 400, ['body.cards[0].teamId']],
            ['malformed card id', await send({ cards: [{ ...item(mine), cardId: 'abc' }], target }), 400, ['body.cards[0].cardId']],
            ['unknown item field', await send({ cards: [{ ...item(mine), list: listA(0) }], target }), 400, ['body.cards[0].list']],
            ['a card twice', await send({ cards: [item(mine), item(opsCard), item(mine)], target }), 400, ['body.cards[2]']],
            ['the wrong team for a card', await send({ cards: [item(mine), { ...item(opsCard), teamId: core.teamId }], target }), 404, ['body.cards[1]']],
            ['a card of another company', await send({ cards: [item(foreignCard), item(mine)], target }), 404, ['body.cards[0]']],
            ['a list of another team', await send({ cards: [item(mine)], target: { ...core, list: listOps() } }), 400, ['body.target.teamId']],
            [
              'a list of another company',
              await send({ cards: [item(mine)], target: { companyId: other.companyId, teamId: other.teamId, list: foreignList } }),
              404,
              ['body.target.list'],
            ],
            ['an unknown list', await send({ cards: [item(mine)], target: { ...core, list: newId() } }), 404, ['body.target.list']],
            ["a member outside the card's team", await send({ cards: [item(opsCard)], target }, memberApi), 404, ['body.cards[0]']],
            [
              'a member onto a list outside its team',
              await send({ cards: [item(mine)], target: { ...ops, list: listOps() } }, memberApi),
              404,
              ['body.target.list'],
            ],
            ['another company', await send({ cards: [item(mine)], target }, other.api), 404, ['body.target.list']],
          ];
          for (const [what, res, status, fields] of cases) assertError(res, status, fields, what);
          assert.deepEqual(await dbState(), before);
        });
      }

      it('takes up to 100 cards in one request', async () => {
        const list = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
        const rows = Array.from({ length: 100 }, (_, i) => ({
          id: newId(),
          company_id: core.companyId,
          team_id: core.teamId,
          board_id: boardA.boardId,
          list_id: listA(0),
          name: `bulk ${i}`,
          creator_id: t.tenant.userId,
          position: 100_000 + i,
          start_date: null,
          due_date: null,
          complete_set_at: null,
          complete_updated_at: null,
          created_at: new Date().toISOString(),
          updated_at: new Date().toISOString(),
        }));
        await t.services.db.insertInto('cards').values(rows).execute();
        const res = await api('PATCH', '/api/v1/cards/move-multi-team', { cards: rows.map((r) => ({ cardId: r.id, ...core })), target: { ...core, list } });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(
          res.json().cards.map((c: { _id: string }) => c._id),
          rows.map((r) => r.id),
        );
        const copied = await api('PATCH', '/api/v1/cards/copy', { cardIds: rows.map((r) => r.id), list });
        assert.equal(copied.statusCode, 200, copied.body);
        assert.equal(copied.json().cards.length, 100);
      });
    });

    it('each route counts against its contract tier', async () => {
      const card = await newCard('Tiers');
      const tiers = await tiersOf(limiter, api, async (api) => {
        await api('POST', `/api/v1/cards/${card._id}/copy`, { list: listA(0) });
        await api('PATCH', '/api/v1/cards/copy', { cardIds: [card._id], list: listA(0) });
        await api('PATCH', '/api/v1/cards/copy-multi-team', { cards: [{ cardId: card._id, ...core }], target: { ...core, list: listA(0) } });
        await api('PATCH', '/api/v1/cards/move-multi-team', { cards: [{ cardId: card._id, ...core }], target: { ...core, list: listA(1) } });
      });
      assert.deepEqual(tiers, [
        ['POST /api/v1/cards/:cardId/copy', 'medium'],
        ['PATCH /api/v1/cards/copy', 'medium'],
        ['PATCH /api/v1/cards/copy-multi-team', 'high'],
        ['PATCH /api/v1/cards/move-multi-team', 'high'],
      ]);
    });

    it('needs an API key', async () => {
      for (const [method, url] of [
        ['POST', `/api/v1/cards/${newId()}/copy`],
        ['PATCH', '/api/v1/cards/copy'],
        ['PATCH', '/api/v1/cards/copy-multi-team'],
        ['PATCH', '/api/v1/cards/move-multi-team'],
      ] as const) {
        const res = await t.app.inject({ method, url, payload: {} });
        assert.equal(res.statusCode, 401, url);
      }
    });

    it('documents request and answer schemas in the OpenAPI document', async () => {
      const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      const operations = [
        ['/api/v1/cards/{cardId}/copy', 'post', '201'],
        ['/api/v1/cards/copy', 'patch', '200'],
        ['/api/v1/cards/copy-multi-team', 'patch', '200'],
        ['/api/v1/cards/move-multi-team', 'patch', '200'],
      ] as const;
      for (const [path, method, status] of operations) {
        const operation = doc.paths[path]?.[method];
        assert.ok(operation, `${method} ${path}`);
        assert.ok(operation.requestBody.content['application/json'].schema.properties, `${path} body`);
        const answer = operation.responses[status].content['application/json'].schema;
        assert.ok(answer.properties.dropped, `${path} answer names dropped`);
        assert.ok(answer.properties.card ?? answer.properties.cards, `${path} answer`);
        assert.ok(operation.responses['404'], `${path} 404`);
      }
    });
  });
}
