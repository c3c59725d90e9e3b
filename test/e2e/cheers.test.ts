import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/domain/shared/ids.ts';
import { Card, Cheer } from '../../src/schemas/records.ts';
import { type CardTeam, cardTeam, storedConversation } from '../support/card-team.ts';
import { seedBoard } from '../support/fixtures.ts';
import { type Api, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { assertSchema } from '../support/schema.ts';
import { describeTiers } from '../support/tiers.ts';

const TYPES = ['card', 'comment', 'discussion', 'attachment'] as const;
type Cheered = (typeof TYPES)[number];

/** A card (made by `owner`) with one of each other cheerable thing, made by `author`: their ids. */
async function cardWithCheerables(owner: Api, author: Api, listId: string): Promise<Record<Cheered, string>> {
  const card = (await owner('POST', '/api/v1/cards', { list: listId, name: 'Cheerful' })).json().card._id;
  const comment = (await author('POST', `/api/v1/cards/${card}/comments`, { content: 'done!' })).json().comment._id;
  const discussion = (await author('POST', `/api/v1/comments/${comment}/discussions`, { content: 'and tested' })).json().discussion._id;
  const attachment = (await author('POST', `/api/v1/cards/${card}/attachments`, { url: 'https://example.test/report' })).json().attachment._id;
  return { card, comment, discussion, attachment };
}

for (const engine of ENGINES) {
  describe(`cheers over HTTP [${engine}]`, () => {
    let t: TestApp;
    let w: CardTeam;

    before(async () => {
      t = await buildTestApp(engine);
      w = await cardTeam(t);
    });
    after(() => t.dispose());

    const cheerables = () => cardWithCheerables(w.owner, w.alice.api, w.listId);
    const path = (type: Cheered, id: string) => `/api/v1/${type}s/${id}/cheers`;
    const stored = (cardId: string) => storedConversation(t, cardId);

    it('Create Cheer answers 201 {message, cheer} for each kind of target; Delete answers the cheer', async () => {
      const ids = await cheerables();
      for (const type of TYPES) {
        const res = await w.bob.api('POST', `${path(type, ids[type])}?companyId=${t.tenant.companyId}&teamId=${t.tenant.teamId}`, { content: '👏' });
        assert.equal(res.statusCode, 201, `${type}: ${res.body}`);
        const body = res.json();
        assert.equal(typeof body.message, 'string');
        assertSchema(Cheer, body.cheer);
        assert.deepEqual(body.cheer.primaryParent, { id: ids[type], type });
        assert.equal(body.cheer.featureType, type);
        assert.equal(body.cheer.card, ids.card);
        assert.equal(body.cheer.receiver, type === 'card' ? t.tenant.userId : w.alice.userId);
      }
      const card = (await w.owner('GET', `/api/v1/cards/${ids.card}`)).json().card;
      assertSchema(Card, card);
      assert.equal(card.cheers.length, 1);
      assert.equal(card.attachments[0]?.cheers.length, 1);
      const [comment] = (await w.owner('GET', `/api/v1/cards/${ids.card}/comments`)).json().comments;
      assert.equal(comment.cheers.length, 1);
      assert.equal(comment.discussions[0].cheers.length, 1);

      for (const type of TYPES) {
        const cheerId = (await t.services.db.selectFrom('cheers').select('id').where('primary_id', '=', ids[type]).executeTakeFirstOrThrow()).id;
        const res = await w.bob.api('DELETE', `${path(type, ids[type])}/${cheerId}?teamId=${t.tenant.teamId}`);
        assert.equal(res.statusCode, 200, `${type}: ${res.body}`);
        assertSchema(Cheer, res.json().cheer);
        assert.equal(res.json().cheer._id, cheerId);
      }
      assert.deepEqual((await stored(ids.card)).cheers, []);
    });

    it("a repeat of the same content by the same member is a 409; deleting another member's cheer is a 403", async () => {
      const ids = await cheerables();
      const first = (await w.bob.api('POST', path('comment', ids.comment), { content: '🙌' })).json().cheer;
      const repeat = await w.bob.api('POST', path('comment', ids.comment), { content: ' 🙌' });
      assert.equal(repeat.statusCode, 409, repeat.body);
      assert.equal(repeat.json().code, 'conflict');
      assert.equal((await w.alice.api('POST', path('comment', ids.comment), { content: '🙌' })).statusCode, 201);
      const before = await stored(ids.card);
      for (const api of [w.alice.api, w.owner]) {
        const res = await api('DELETE', `${path('comment', ids.comment)}/${first._id}`);
        assert.equal(res.statusCode, 403, res.body);
        assert.equal(res.json().code, 'forbidden');
      }
      assert.deepEqual(await stored(ids.card), before);
    });

    it('cheering a deleted attachment is a 404', async () => {
      const ids = await cheerables();
      assert.equal((await w.owner('DELETE', `/api/v1/cards/${ids.card}/attachments/${ids.attachment}`)).statusCode, 200);
      const res = await w.bob.api('POST', path('attachment', ids.attachment), { content: '👍' });
      assert.equal(res.statusCode, 404, res.body);
      assert.equal(res.json().code, 'not_found');
    });

    it("is a 404 for another company's key, another team's member, a mismatching scope or an unknown id, and changes nothing", async () => {
      const ids = await cheerables();
      const cheers = Object.fromEntries(
        await Promise.all(TYPES.map(async (type) => [type, (await w.alice.api('POST', path(type, ids[type]), { content: '✅' })).json().cheer._id])),
      ) as Record<Cheered, string>;
      const before = await stored(ids.card);
      const attempts: [Api, 'POST' | 'DELETE', string][] = [];
      for (const type of TYPES) {
        for (const api of [w.other.api, w.outsider.api]) {
          attempts.push([api, 'POST', path(type, ids[type])], [api, 'DELETE', `${path(type, ids[type])}/${cheers[type]}`]);
        }
        for (const scope of [`companyId=${w.other.companyId}`, `teamId=${w.other.teamId}`]) {
          attempts.push(
            [w.alice.api, 'POST', `${path(type, ids[type])}?${scope}`],
            [w.alice.api, 'DELETE', `${path(type, ids[type])}/${cheers[type]}?${scope}`],
          );
        }
        attempts.push(
          [w.alice.api, 'POST', path(type, newId())],
          [w.alice.api, 'DELETE', `${path(type, newId())}/${cheers[type]}`],
          [w.alice.api, 'DELETE', `${path(type, ids[type])}/${newId()}`],
        );
      }
      // a cheer named under a target it does not belong to
      attempts.push(
        [w.alice.api, 'DELETE', `${path('card', ids.card)}/${cheers.comment}`],
        [w.alice.api, 'DELETE', `${path('comment', ids.comment)}/${cheers.discussion}`],
      );
      // an id of the wrong kind of thing
      attempts.push(
        [w.alice.api, 'POST', path('comment', ids.card)],
        [w.alice.api, 'POST', path('discussion', ids.comment)],
        [w.alice.api, 'POST', path('attachment', ids.card)],
      );
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
        ['an unknown field', { content: '👍', receiver: w.alice.userId }, 'body.receiver'],
      ];
      for (const type of TYPES) {
        for (const [what, body, field] of bodies) {
          const res = await w.bob.api('POST', path(type, ids[type]), body);
          assert.equal(res.statusCode, 400, `${type} ${what}: ${res.body}`);
          assert.equal(res.json().code, 'validation_failed');
          assert.ok(
            res.json().details.some((d: { field: string }) => d.field === field),
            `${type} ${what}: ${res.body}`,
          );
        }
        for (const [method, url] of [
          ['POST', path(type, 'abc')],
          ['DELETE', `${path(type, 'abc')}/${newId()}`],
          ['DELETE', `${path(type, ids[type])}/not-an-id`],
          ['POST', `${path(type, ids[type])}?teamId=core`],
        ] as const) {
          const res = await w.bob.api(method, url, method === 'POST' ? { content: '👍' } : undefined);
          assert.equal(res.statusCode, 400, `${method} ${url}: ${res.body}`);
          assert.equal(res.json().code, 'validation_failed');
        }
      }
      // 64 characters (code points) is the most; an emoji sequence counts its code points
      assert.equal((await w.bob.api('POST', path('card', ids.card), { content: 'y'.repeat(64) })).statusCode, 201);
      assert.equal((await w.bob.api('POST', path('card', ids.card), { content: '🎉'.repeat(64) })).statusCode, 201);
      const after = await stored(ids.card);
      assert.equal(after.cheers.length, before.cheers.length + 2, 'only the two valid cheers were stored');
    });

    it('needs an API key', async () => {
      const ids = await cheerables();
      const res = await t.app.inject({ method: 'POST', url: path('card', ids.card), payload: { content: '👍' } });
      assert.equal(res.statusCode, 401);
    });
  });
}

describeTiers('cheer routes', {
  engines: ENGINES,
  given: async (t, api) => cardWithCheerables(api, api, (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string),
  calls: async (api, ids) => {
    for (const type of TYPES) {
      const cheer = (await api('POST', `/api/v1/${type}s/${ids[type]}/cheers`, { content: '👍' })).json().cheer;
      await api('DELETE', `/api/v1/${type}s/${ids[type]}/cheers/${cheer._id}`);
    }
  },
  expected: TYPES.flatMap((type) => [
    [`POST /api/v1/${type}s/:${type}Id/cheers`, 'low'],
    [`DELETE /api/v1/${type}s/:${type}Id/cheers/:cheerId`, 'low'],
  ]),
});
