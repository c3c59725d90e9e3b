import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Value from 'typebox/value';
import { bootstrap, type BootstrapResult } from '../../src/domain/account/bootstrap.ts';
import { newId } from '../../src/domain/shared/ids.ts';
import { Card, Cheer } from '../../src/schemas/records.ts';
import { addMember, addTeam, type MemberFixture, seedBoard } from '../support/fixtures.ts';
import { apiClient, buildTestApp, ENGINES, recordingLimiter, type TestApp } from '../support/harness.ts';

type Api = ReturnType<typeof apiClient>;
const TYPES = ['card', 'comment', 'discussion', 'attachment'] as const;
type Cheered = (typeof TYPES)[number];

for (const engine of ENGINES) {
  describe(`cheers over HTTP [${engine}]`, () => {
    let t: TestApp;
    let owner: Api;
    let alice: MemberFixture;
    let aliceApi: Api;
    let bobApi: Api;
    let outsiderApi: Api;
    let other: BootstrapResult;
    let otherApi: Api;
    let listId: string;

    before(async () => {
      t = await buildTestApp(engine);
      const { companyId, teamId } = t.tenant;
      alice = await addMember(t.services, { companyId, teamIds: [teamId], email: 'alice@acme.test', fullName: 'Alice' });
      const bob = await addMember(t.services, { companyId, teamIds: [teamId], email: 'bob@acme.test', fullName: 'Bob' });
      const outsider = await addMember(t.services, { companyId, email: 'out@acme.test' });
      await addTeam(t.services, companyId, 'Elsewhere', [outsider.userId]);
      other = await bootstrap(t.services, { company: 'Globex', team: 'Ops', email: 'owner@globex.test', fullName: 'Gina' });
      owner = apiClient(t, t.tenant.apiKey);
      aliceApi = apiClient(t, alice.apiKey);
      bobApi = apiClient(t, bob.apiKey);
      outsiderApi = apiClient(t, outsider.apiKey);
      otherApi = apiClient(t, other.apiKey);
      listId = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
    });
    after(() => t.dispose());

    /** A card with one of each cheerable thing, all made by Alice except the card (the owner's). */
    async function cheerables(): Promise<Record<Cheered, string>> {
      const card = (await owner('POST', '/api/v1/cards', { list: listId, name: 'Cheerful' })).json().card._id;
      const comment = (await aliceApi('POST', `/api/v1/cards/${card}/comments`, { content: 'done!' })).json().comment._id;
      const discussion = (await aliceApi('POST', `/api/v1/comments/${comment}/discussions`, { content: 'and tested' })).json().discussion._id;
      const attachment = (await aliceApi('POST', `/api/v1/cards/${card}/attachments`, { url: 'https://example.test/report' })).json().attachment._id;
      return { card, comment, discussion, attachment };
    }
    const path = (type: Cheered, id: string) => `/api/v1/${type}s/${id}/cheers`;
    async function stored(cardId: string) {
      const db = t.services.db;
      return {
        card: await db.selectFrom('cards').select(['version', 'updated_at']).where('id', '=', cardId).executeTakeFirstOrThrow(),
        comments: await db.selectFrom('comments').selectAll().where('card_id', '=', cardId).execute(),
        discussions: await db.selectFrom('discussions').selectAll().where('card_id', '=', cardId).execute(),
        attachments: await db.selectFrom('attachments').selectAll().where('card_id', '=', cardId).execute(),
        cheers: await db.selectFrom('cheers').selectAll().where('card_id', '=', cardId).orderBy('id').execute(),
      };
    }

    it('Create Cheer answers 201 {message, cheer} for each kind of target; Delete answers the cheer', async () => {
      const ids = await cheerables();
      for (const type of TYPES) {
        const res = await bobApi('POST', `${path(type, ids[type])}?companyId=${t.tenant.companyId}&teamId=${t.tenant.teamId}`, { content: '👏' });
        assert.equal(res.statusCode, 201, `${type}: ${res.body}`);
        const body = res.json();
        assert.equal(typeof body.message, 'string');
        assert.ok(Value.Check(Cheer, body.cheer), JSON.stringify([...Value.Errors(Cheer, body.cheer)].slice(0, 3)));
        assert.deepEqual(body.cheer.primaryParent, { id: ids[type], type });
        assert.equal(body.cheer.featureType, type);
        assert.equal(body.cheer.card, ids.card);
        assert.equal(body.cheer.receiver, type === 'card' ? t.tenant.userId : alice.userId);
      }
      const card = (await owner('GET', `/api/v1/cards/${ids.card}`)).json().card;
      assert.ok(Value.Check(Card, card));
      assert.equal(card.cheers.length, 1);
      assert.equal(card.attachments[0]?.cheers.length, 1);
      const [comment] = (await owner('GET', `/api/v1/cards/${ids.card}/comments`)).json().comments;
      assert.equal(comment.cheers.length, 1);
      assert.equal(comment.discussions[0].cheers.length, 1);

      for (const type of TYPES) {
        const cheerId = (await t.services.db.selectFrom('cheers').select('id').where('primary_id', '=', ids[type]).executeTakeFirstOrThrow()).id;
        const res = await bobApi('DELETE', `${path(type, ids[type])}/${cheerId}?teamId=${t.tenant.teamId}`);
        assert.equal(res.statusCode, 200, `${type}: ${res.body}`);
        assert.ok(Value.Check(Cheer, res.json().cheer));
        assert.equal(res.json().cheer._id, cheerId);
      }
      assert.deepEqual((await stored(ids.card)).cheers, []);
    });

    it('a repeat of the same content by the same member is a 409; deleting another member\'s cheer is a 403', async () => {
      const ids = await cheerables();
      const first = (await bobApi('POST', path('comment', ids.comment), { content: '🙌' })).json().cheer;
      const repeat = await bobApi('POST', path('comment', ids.comment), { content: ' 🙌' });
      assert.equal(repeat.statusCode, 409, repeat.body);
      assert.equal(repeat.json().code, 'conflict');
      assert.equal((await aliceApi('POST', path('comment', ids.comment), { content: '🙌' })).statusCode, 201);
      const before = await stored(ids.card);
      for (const api of [aliceApi, owner]) {
        const res = await api('DELETE', `${path('comment', ids.comment)}/${first._id}`);
        assert.equal(res.statusCode, 403, res.body);
        assert.equal(res.json().code, 'forbidden');
      }
      assert.deepEqual(await stored(ids.card), before);
    });

    it('cheering a deleted attachment is a 404', async () => {
      const ids = await cheerables();
      assert.equal((await owner('DELETE', `/api/v1/cards/${ids.card}/attachments/${ids.attachment}`)).statusCode, 200);
      const res = await bobApi('POST', path('attachment', ids.attachment), { content: '👍' });
      assert.equal(res.statusCode, 404, res.body);
      assert.equal(res.json().code, 'not_found');
    });

    it("is a 404 for another company's key, another team's member, a mismatching scope or an unknown id, and changes nothing", async () => {
      const ids = await cheerables();
      const cheers = Object.fromEntries(
        await Promise.all(TYPES.map(async (type) => [type, (await aliceApi('POST', path(type, ids[type]), { content: '✅' })).json().cheer._id])),
      ) as Record<Cheered, string>;
      const before = await stored(ids.card);
      const attempts: [Api, 'POST' | 'DELETE', string][] = [];
      for (const type of TYPES) {
        for (const api of [otherApi, outsiderApi]) {
          attempts.push([api, 'POST', path(type, ids[type])], [api, 'DELETE', `${path(type, ids[type])}/${cheers[type]}`]);
        }
        for (const scope of [`companyId=${other.companyId}`, `teamId=${other.teamId}`]) {
          attempts.push([aliceApi, 'POST', `${path(type, ids[type])}?${scope}`], [aliceApi, 'DELETE', `${path(type, ids[type])}/${cheers[type]}?${scope}`]);
        }
        attempts.push(
          [aliceApi, 'POST', path(type, newId())],
          [aliceApi, 'DELETE', `${path(type, newId())}/${cheers[type]}`],
          [aliceApi, 'DELETE', `${path(type, ids[type])}/${newId()}`],
        );
      }
      // a cheer named under a target it does not belong to
      attempts.push([aliceApi, 'DELETE', `${path('card', ids.card)}/${cheers.comment}`], [aliceApi, 'DELETE', `${path('comment', ids.comment)}/${cheers.discussion}`]);
      // an id of the wrong kind of thing
      attempts.push([aliceApi, 'POST', path('comment', ids.card)], [aliceApi, 'POST', path('discussion', ids.comment)], [aliceApi, 'POST', path('attachment', ids.card)]);
      for (const [api, method, url] of attempts) {
        const res = await api(method, url, method === 'POST' ? { content: '💥' } : undefined);
        assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
        assert.equal(res.json().code, 'not_found');
      }
      assert.deepEqual(await stored(ids.card), before);
    });

    it('rejects bad input with 400 validation_failed naming the field, never 5xx, and changes nothing', async () => {
      const ids = await cheerables();
      const before = await stored(ids.card);
      const bodies: [string, unknown, string][] = [
        ['missing content', {}, 'body.content'],
        ['empty content', { content: '' }, 'body.content'],
        ['blank content', { content: '   ' }, 'body.content'],
        ['65 characters', { content: 'x'.repeat(65) }, 'body.content'],
        ['a line break', { content: 'two\nlines' }, 'body.content'],
        ['a number', { content: 1 }, 'body.content'],
        ['an unknown field', { content: '👍', receiver: alice.userId }, 'body.receiver'],
      ];
      for (const type of TYPES) {
        for (const [what, body, field] of bodies) {
          const res = await bobApi('POST', path(type, ids[type]), body);
          assert.equal(res.statusCode, 400, `${type} ${what}: ${res.body}`);
          assert.equal(res.json().code, 'validation_failed');
          assert.ok(res.json().details.some((d: { field: string }) => d.field === field), `${type} ${what}: ${res.body}`);
        }
        for (const [method, url] of [
          ['POST', path(type, 'abc')],
          ['DELETE', `${path(type, 'abc')}/${newId()}`],
          ['DELETE', `${path(type, ids[type])}/not-an-id`],
          ['POST', `${path(type, ids[type])}?teamId=core`],
        ] as const) {
          const res = await bobApi(method, url, method === 'POST' ? { content: '👍' } : undefined);
          assert.equal(res.statusCode, 400, `${method} ${url}: ${res.body}`);
          assert.equal(res.json().code, 'validation_failed');
        }
      }
      // 64 characters (code points) is the most; an emoji sequence counts its code points
      assert.equal((await bobApi('POST', path('card', ids.card), { content: 'y'.repeat(64) })).statusCode, 201);
      assert.equal((await bobApi('POST', path('card', ids.card), { content: '🎉'.repeat(64) })).statusCode, 201);
      const after = await stored(ids.card);
      assert.equal(after.cheers.length, before.cheers.length + 2, 'only the two valid cheers were stored');
    });

    it('needs an API key', async () => {
      const ids = await cheerables();
      const res = await t.app.inject({ method: 'POST', url: path('card', ids.card), payload: { content: '👍' } });
      assert.equal(res.statusCode, 401);
    });
  });

  describe(`cheer routes and their rate-limit tiers [${engine}]`, () => {
    let t: TestApp;
    const limiter = recordingLimiter();
    before(async () => {
      t = await buildTestApp(engine, { rateLimiter: limiter });
    });
    after(() => t.dispose());

    it('counts each operation under its route template and the low tier', async () => {
      const api = apiClient(t, t.tenant.apiKey);
      const listId = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
      const card = (await api('POST', '/api/v1/cards', { list: listId, name: 'c' })).json().card._id;
      const comment = (await api('POST', `/api/v1/cards/${card}/comments`, { content: 'c' })).json().comment._id;
      const discussion = (await api('POST', `/api/v1/comments/${comment}/discussions`, { content: 'd' })).json().discussion._id;
      const attachment = (await api('POST', `/api/v1/cards/${card}/attachments`, { url: 'https://example.test' })).json().attachment._id;
      const ids: Record<Cheered, string> = { card, comment, discussion, attachment };
      limiter.seen.length = 0;
      for (const type of TYPES) {
        const cheer = (await api('POST', `/api/v1/${type}s/${ids[type]}/cheers`, { content: '👍' })).json().cheer;
        assert.ok(cheer, type);
        await api('DELETE', `/api/v1/${type}s/${ids[type]}/cheers/${cheer._id}`);
      }
      assert.deepEqual(
        limiter.seen.map((r) => [r.route, r.tier]),
        TYPES.flatMap((type) => [
          [`POST /api/v1/${type}s/:${type}Id/cheers`, 'low'],
          [`DELETE /api/v1/${type}s/:${type}Id/cheers/:cheerId`, 'low'],
        ]),
      );
    });
  });
}
