import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/domain/shared/ids.ts';
import { Comment, Discussion } from '../../src/schemas/comments.ts';
import { Card } from '../../src/schemas/records.ts';
import { type CardTeam, cardTeam, storedConversation } from '../support/card-team.ts';
import { seedBoard } from '../support/fixtures.ts';
import { type Api, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { assertSchema } from '../support/schema.ts';
import { describeTiers } from '../support/tiers.ts';
import { assertUpdatedAtMoved, backdate, LONG_AGO } from '../support/updated-at.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface CommentRecord {
  _id: string;
  content: string;
  creator: { _id: string; fullName: string; photoUrl: string };
  discussions: { _id: string; content: string; __v: number }[];
  cheers: { _id: string }[];
  createdAt: string;
  updatedAt: string;
  __v: number;
}

for (const engine of ENGINES) {
  describe(`comments and discussions over HTTP [${engine}]`, () => {
    let t: TestApp;
    let w: CardTeam;

    before(async () => {
      t = await buildTestApp(engine);
      w = await cardTeam(t);
    });
    after(() => t.dispose());

    async function newCard(): Promise<string> {
      const res = await w.owner('POST', '/api/v1/cards', { list: w.listId, name: 'Discussed' });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().card._id;
    }
    async function comment(api: Api, cardId: string, content: string): Promise<CommentRecord> {
      const res = await api('POST', `/api/v1/cards/${cardId}/comments`, { content });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().comment;
    }
    async function reply(api: Api, commentId: string, content: string) {
      const res = await api('POST', `/api/v1/comments/${commentId}/discussions`, { content });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().discussion;
    }
    const cardVersion = async (cardId: string) =>
      await t.services.db.selectFrom('cards').select(['version', 'updated_at']).where('id', '=', cardId).executeTakeFirstOrThrow();
    /** Sets the card's updatedAt far back, so that a change shows as a later one whatever the clock did. */
    const backdateCard = (cardId: string) => backdate(t.services.db, 'cards', cardId);
    const conversation = (cardId: string) => storedConversation(t, cardId);

    it('Create Comment answers 201 {message, comment}; the card lists it and its __v and updatedAt move', async () => {
      const cardId = await newCard();
      await backdateCard(cardId);
      const before = await cardVersion(cardId);
      const res = await w.alice.api('POST', `/api/v1/cards/${cardId}/comments?companyId=${t.tenant.companyId}&teamId=${t.tenant.teamId}`, {
        content: '  Looks good to me  ',
      });
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json();
      assert.equal(typeof body.message, 'string');
      assertSchema(Comment, body.comment);
      const created = body.comment;
      assert.equal(created.content, 'Looks good to me');
      assert.deepEqual(created.creator, { _id: w.alice.userId, fullName: 'Alice Author', photoUrl: '' });
      assert.equal(created.card, cardId);
      assert.equal(created.company, t.tenant.companyId);
      assert.equal(created.team, t.tenant.teamId);
      assert.deepEqual(created.discussions, []);
      assert.deepEqual(created.cheers, []);
      assert.equal(created.__v, 0);
      assert.match(created.createdAt, ISO);
      assert.equal(created.updatedAt, created.createdAt);

      const after = await cardVersion(cardId);
      assert.equal(after.version, before.version + 1);
      assert.ok(after.updated_at > before.updated_at, 'updatedAt moved');
      const card = (await w.owner('GET', `/api/v1/cards/${cardId}`)).json().card;
      assertSchema(Card, card);
      assert.deepEqual(card.comments, [created._id]);
    });

    it('Get Comments pages oldest first, in card.comments order, each comment with its discussions and cheers', async () => {
      const cardId = await newCard();
      const made: CommentRecord[] = [];
      for (const [i, api] of [w.owner, w.alice.api, w.bob.api, w.alice.api, w.owner].entries()) made.push(await comment(api, cardId, `comment ${i}`));
      const r1 = await reply(w.bob.api, made[1]!._id, 'first reply');
      const r2 = await reply(w.alice.api, made[1]!._id, 'second reply');
      const cheer = (await w.bob.api('POST', `/api/v1/comments/${made[1]!._id}/cheers`, { content: '👍' })).json().cheer;

      const pages: { comments: CommentRecord[]; nextCursor: string | null }[] = [];
      let cursor: string | null = null;
      do {
        const res = await w.owner('GET', `/api/v1/cards/${cardId}/comments?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        assert.equal(typeof body.message, 'string');
        for (const c of body.comments) assertSchema(Comment, c);
        pages.push(body);
        cursor = body.nextCursor;
      } while (cursor);
      assert.deepEqual(
        pages.map((p) => p.comments.length),
        [2, 2, 1],
      );
      assert.equal(pages.at(-1)?.nextCursor, null);
      const all = pages.flatMap((p) => p.comments);
      assert.deepEqual(
        all.map((c) => c.content),
        ['comment 0', 'comment 1', 'comment 2', 'comment 3', 'comment 4'],
      );
      const card = (await w.owner('GET', `/api/v1/cards/${cardId}`)).json().card;
      assert.deepEqual(
        all.map((c) => c._id),
        card.comments,
      );

      const discussed = all[1]!;
      assert.deepEqual(
        discussed.discussions.map((d) => d._id),
        [r1._id, r2._id],
      );
      assert.deepEqual(
        discussed.discussions.map((d) => d.content),
        ['first reply', 'second reply'],
      );
      assert.deepEqual(
        discussed.cheers.map((c) => c._id),
        [cheer._id],
      );
      assert.equal(discussed.__v, 3, 'two replies and one cheer changed the comment');
      assert.deepEqual(all[0]!.discussions, []);

      // the whole card in one page by default, and an exact page size answers no cursor
      const whole = (await w.owner('GET', `/api/v1/cards/${cardId}/comments`)).json();
      assert.deepEqual(whole.comments, all);
      assert.equal(whole.nextCursor, null);
      assert.equal((await w.owner('GET', `/api/v1/cards/${cardId}/comments?limit=5`)).json().nextCursor, null);
      const empty = (await w.owner('GET', `/api/v1/cards/${await newCard()}/comments`)).json();
      assert.deepEqual([empty.comments, empty.nextCursor], [[], null]);

      it('Get Comments with order=newest pages newest first; a cursor pages only the order that made it', async () => {
        const cardId = await newCard();
        for (let i = 0; i < 5; i++) await comment(w.owner, cardId, `n${i}`);
        const seen: string[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const res = await w.owner('GET', `/api/v1/cards/${cardId}/comments?order=newest&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
          assert.equal(res.statusCode, 200, res.body);
          const body = res.json();
          seen.push(...body.comments.map((c: CommentRecord) => c.content));
          cursor = body.nextCursor;
          pages += 1;
          // a comment added while paging is newer than every page still to come: never repeated, never shown late
          if (pages === 1) await comment(w.owner, cardId, 'added meanwhile');
        } while (cursor);
        assert.equal(pages, 3);
        const card = (await w.owner('GET', `/api/v1/cards/${cardId}`)).json().card;
        const byId = new Map(((await w.owner('GET', `/api/v1/cards/${cardId}/comments`)).json().comments as CommentRecord[]).map((c) => [c._id, c.content]));
        const oldestFirstBeforeTheAddition = (card.comments as string[]).map((id) => byId.get(id)).filter((content) => content !== 'added meanwhile');
        assert.deepEqual(seen, oldestFirstBeforeTheAddition.reverse());

        const oldestCursor = (await w.owner('GET', `/api/v1/cards/${cardId}/comments?limit=2`)).json().nextCursor;
        const newestCursor = (await w.owner('GET', `/api/v1/cards/${cardId}/comments?order=newest&limit=2`)).json().nextCursor;
        for (const url of [`order=newest&cursor=${oldestCursor}`, `cursor=${newestCursor}`, 'order=latest']) {
          const res = await w.owner('GET', `/api/v1/cards/${cardId}/comments?${url}`);
          assert.equal(res.statusCode, 400, url);
          assert.equal(res.json().code, 'validation_failed');
        }
      });
    });

    it('Get Comments answers at most 50 by default and at most 200 when asked', async () => {
      const cardId = await newCard();
      for (let i = 0; i < 51; i++) await comment(w.owner, cardId, `c${i}`);
      const first = (await w.owner('GET', `/api/v1/cards/${cardId}/comments`)).json();
      assert.equal(first.comments.length, 50);
      assert.equal(typeof first.nextCursor, 'string');
      const rest = (await w.owner('GET', `/api/v1/cards/${cardId}/comments?cursor=${first.nextCursor}`)).json();
      assert.deepEqual(
        rest.comments.map((c: CommentRecord) => c.content),
        ['c50'],
      );
      assert.equal(rest.nextCursor, null);
      assert.equal((await w.owner('GET', `/api/v1/cards/${cardId}/comments?limit=200`)).json().comments.length, 51);
      assert.equal((await w.owner('GET', `/api/v1/cards/${cardId}/comments?limit=201`)).statusCode, 400);
    });

    it('Update Comment: the author only; __v and updatedAt of the comment and the card move', async () => {
      const cardId = await newCard();
      const created = await comment(w.alice.api, cardId, 'draft');
      const before = await conversation(cardId);
      for (const api of [w.bob.api, w.owner]) {
        const refused = await api('PATCH', `/api/v1/comments/${created._id}`, { content: 'not mine' });
        assert.equal(refused.statusCode, 403, refused.body);
        assert.equal(refused.json().code, 'forbidden');
      }
      assert.deepEqual(await conversation(cardId), before, 'a refused edit changes nothing');

      // both far back, so that the edit shows as a later change whatever the clock did
      await backdateCard(cardId);
      await backdate(t.services.db, 'comments', created._id);
      const res = await w.alice.api('PATCH', `/api/v1/comments/${created._id}?teamId=${t.tenant.teamId}`, { content: ' final words ' });
      assert.equal(res.statusCode, 200, res.body);
      const updated = res.json().comment;
      assertSchema(Comment, updated);
      assert.equal(updated.content, 'final words');
      assert.equal(updated.__v, 1);
      assert.equal(updated.createdAt, created.createdAt);
      await assertUpdatedAtMoved(t.services.db, 'comments', created._id, updated.updatedAt, 'an edit');
      const card = await cardVersion(cardId);
      assert.equal(card.version, before.card.version + 1);
      assert.ok(card.updated_at > LONG_AGO, "the card's updatedAt moved");
    });

    it('Delete Comment: the author or a company owner/admin; replies and cheers go, and it leaves card.comments', async () => {
      const cardId = await newCard();
      const keep = await comment(w.owner, cardId, 'stays');
      const doomed = await comment(w.alice.api, cardId, 'goes');
      const own = await comment(w.bob.api, cardId, 'mine to delete');
      const answer = await reply(w.bob.api, doomed._id, 'a reply');
      assert.equal((await w.alice.api('POST', `/api/v1/discussions/${answer._id}/cheers`, { content: '🎉' })).statusCode, 201);
      assert.equal((await w.bob.api('POST', `/api/v1/comments/${doomed._id}/cheers`, { content: '👀' })).statusCode, 201);
      const cardCheer = (await w.bob.api('POST', `/api/v1/cards/${cardId}/cheers`, { content: '🚀' })).json().cheer;

      const before = await conversation(cardId);
      const refused = await w.bob.api('DELETE', `/api/v1/comments/${doomed._id}`);
      assert.equal(refused.statusCode, 403);
      assert.equal(refused.json().code, 'forbidden');
      assert.deepEqual(await conversation(cardId), before);

      const res = await w.owner('DELETE', `/api/v1/comments/${doomed._id}`);
      assert.equal(res.statusCode, 200, res.body);
      const deleted = res.json().comment;
      assertSchema(Comment, deleted);
      assert.equal(deleted._id, doomed._id);
      assert.deepEqual(
        deleted.discussions.map((d: { _id: string }) => d._id),
        [answer._id],
        'answers the comment as it was',
      );
      assert.equal(deleted.cheers.length, 1);

      const afterDelete = await conversation(cardId);
      assert.deepEqual(afterDelete.comments.map((c) => c.id).sort(), [keep._id, own._id].sort());
      assert.deepEqual(afterDelete.discussions, []);
      assert.deepEqual(
        afterDelete.cheers.map((c) => c.id),
        [cardCheer._id],
        'only the cheer on the card is left',
      );
      assert.equal(afterDelete.card.version, before.card.version + 1);

      const byAuthor = await w.bob.api('DELETE', `/api/v1/comments/${own._id}`);
      assert.equal(byAuthor.statusCode, 200, byAuthor.body);
      const card = (await w.owner('GET', `/api/v1/cards/${cardId}`)).json().card;
      assert.deepEqual(card.comments, [keep._id]);
      assert.equal((await w.owner('DELETE', `/api/v1/comments/${doomed._id}`)).statusCode, 404, 'gone is gone');
      assert.equal((await w.owner('PATCH', `/api/v1/comments/${doomed._id}`, { content: 'x' })).statusCode, 404);
      assert.equal((await w.owner('POST', `/api/v1/comments/${doomed._id}/discussions`, { content: 'x' })).statusCode, 404);
      assert.equal((await w.owner('PATCH', `/api/v1/discussions/${answer._id}`, { content: 'x' })).statusCode, 404);
    });

    it('Discussions: create (201), update by the author only, delete by the author or an admin; the comment changes with them', async () => {
      const cardId = await newCard();
      const parent = await comment(w.owner, cardId, 'question?');
      const res = await w.alice.api('POST', `/api/v1/comments/${parent._id}/discussions?companyId=${t.tenant.companyId}`, { content: ' answer ' });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(typeof res.json().message, 'string');
      const created = res.json().discussion;
      assertSchema(Discussion, created);
      assert.equal(created.content, 'answer');
      assert.deepEqual(created.creator, { _id: w.alice.userId, fullName: 'Alice Author', photoUrl: '' });
      assert.deepEqual([created.comment, created.card, created.company, created.team], [parent._id, cardId, t.tenant.companyId, t.tenant.teamId]);
      assert.deepEqual(created.cheers, []);
      assert.equal(created.__v, 0);
      assert.equal(created.createdAt, created.updatedAt);

      const before = await conversation(cardId);
      for (const api of [w.bob.api, w.owner]) assert.equal((await api('PATCH', `/api/v1/discussions/${created._id}`, { content: 'no' })).statusCode, 403);
      assert.equal((await w.bob.api('DELETE', `/api/v1/discussions/${created._id}`)).statusCode, 403);
      assert.deepEqual(await conversation(cardId), before);

      const edited = await w.alice.api('PATCH', `/api/v1/discussions/${created._id}`, { content: 'better answer' });
      assert.equal(edited.statusCode, 200, edited.body);
      assertSchema(Discussion, edited.json().discussion);
      assert.equal(edited.json().discussion.content, 'better answer');
      assert.equal(edited.json().discussion.__v, 1);

      const second = await reply(w.bob.api, parent._id, 'me too');
      const removed = await w.owner('DELETE', `/api/v1/discussions/${second._id}`);
      assert.equal(removed.statusCode, 200, removed.body);
      assert.equal(removed.json().discussion._id, second._id);
      assert.equal(removed.json().discussion.content, 'me too');
      const byAuthor = await w.alice.api('DELETE', `/api/v1/discussions/${created._id}`);
      assert.equal(byAuthor.statusCode, 200);

      const [stored] = (await w.owner('GET', `/api/v1/cards/${cardId}/comments`)).json().comments;
      assert.deepEqual(stored.discussions, []);
      // created, edited, second created, second deleted, first deleted: five changes of the comment
      assert.equal(stored.__v, 5);
      assert.equal((await cardVersion(cardId)).version, before.card.version + 4);
    });

    it("every change of the card's conversation moves the card's updatedAt and grows its __v by one", async () => {
      const cardId = await newCard();
      const link = await w.alice.api('POST', `/api/v1/cards/${cardId}/attachments`, { url: 'https://example.test/spec' });
      assert.equal(link.statusCode, 201, link.body);
      const attachmentId: string = link.json().attachment._id;
      const ids: Record<string, string> = {};
      const changes: [string, () => ReturnType<Api>][] = [
        ['create comment', () => w.alice.api('POST', `/api/v1/cards/${cardId}/comments`, { content: 'c' })],
        ['update comment', () => w.alice.api('PATCH', `/api/v1/comments/${ids.comment}`, { content: 'c2' })],
        ['create discussion', () => w.bob.api('POST', `/api/v1/comments/${ids.comment}/discussions`, { content: 'd' })],
        ['update discussion', () => w.bob.api('PATCH', `/api/v1/discussions/${ids.discussion}`, { content: 'd2' })],
        ['cheer the card', () => w.bob.api('POST', `/api/v1/cards/${cardId}/cheers`, { content: '👍' })],
        ['cheer the comment', () => w.bob.api('POST', `/api/v1/comments/${ids.comment}/cheers`, { content: '👍' })],
        ['cheer the discussion', () => w.alice.api('POST', `/api/v1/discussions/${ids.discussion}/cheers`, { content: '👍' })],
        ['cheer the attachment', () => w.bob.api('POST', `/api/v1/attachments/${attachmentId}/cheers`, { content: '👍' })],
        ['delete the cheer on the card', () => w.bob.api('DELETE', `/api/v1/cards/${cardId}/cheers/${ids.cheer}`)],
        ['delete the discussion', () => w.bob.api('DELETE', `/api/v1/discussions/${ids.discussion}`)],
        ['delete the comment', () => w.alice.api('DELETE', `/api/v1/comments/${ids.comment}`)],
      ];
      for (const [what, change] of changes) {
        await backdateCard(cardId);
        const before = await cardVersion(cardId);
        const res = await change();
        assert.ok(res.statusCode === 200 || res.statusCode === 201, `${what}: ${res.body}`);
        const body = res.json();
        ids.comment ??= body.comment?._id;
        ids.discussion ??= body.discussion?._id;
        if (what === 'cheer the card') ids.cheer = body.cheer._id;
        const after = await cardVersion(cardId);
        assert.equal(after.version, before.version + 1, `${what}: __v`);
        assert.ok(after.updated_at > before.updated_at, `${what}: updatedAt`);
      }
    });

    it('Get Comment answers the comment with its discussions and cheers, as Get Comments shows it', async () => {
      const cardId = await newCard();
      const c = await comment(w.alice.api, cardId, 'one to read');
      await reply(w.alice.api, c._id, 'a reply');
      const res = await w.alice.api('GET', `/api/v1/comments/${c._id}`);
      assert.equal(res.statusCode, 200, res.body);
      assertSchema(Comment, res.json().comment);
      const page = (await w.alice.api('GET', `/api/v1/cards/${cardId}/comments`)).json().comments;
      assert.deepEqual(
        res.json().comment,
        page.find((x: { _id: string }) => x._id === c._id),
      );
      assert.equal(res.json().comment.discussions.length, 1);
    });

    it("is a 404 for another company's key, another team's member, a mismatching scope or an unknown id, and changes nothing", async () => {
      const cardId = await newCard();
      const c = await comment(w.alice.api, cardId, 'private');
      const d = await reply(w.alice.api, c._id, 'private reply');
      const before = await conversation(cardId);
      const cases: [Api, 'GET' | 'POST' | 'PATCH' | 'DELETE', string, unknown?][] = [];
      for (const api of [w.other.api, w.outsider.api]) {
        cases.push(
          [api, 'POST', `/api/v1/cards/${cardId}/comments`, { content: 'x' }],
          [api, 'GET', `/api/v1/cards/${cardId}/comments`],
          [api, 'GET', `/api/v1/comments/${c._id}`],
          [api, 'PATCH', `/api/v1/comments/${c._id}`, { content: 'x' }],
          [api, 'DELETE', `/api/v1/comments/${c._id}`],
          [api, 'POST', `/api/v1/comments/${c._id}/discussions`, { content: 'x' }],
          [api, 'PATCH', `/api/v1/discussions/${d._id}`, { content: 'x' }],
          [api, 'DELETE', `/api/v1/discussions/${d._id}`],
        );
      }
      for (const scope of [`companyId=${w.other.companyId}`, `teamId=${w.other.teamId}`, `companyId=${t.tenant.companyId}&teamId=${w.other.teamId}`]) {
        cases.push(
          [w.alice.api, 'POST', `/api/v1/cards/${cardId}/comments?${scope}`, { content: 'x' }],
          [w.alice.api, 'GET', `/api/v1/cards/${cardId}/comments?${scope}`],
          [w.alice.api, 'GET', `/api/v1/comments/${c._id}?${scope}`],
          [w.alice.api, 'PATCH', `/api/v1/comments/${c._id}?${scope}`, { content: 'x' }],
          [w.alice.api, 'DELETE', `/api/v1/comments/${c._id}?${scope}`],
          [w.alice.api, 'POST', `/api/v1/comments/${c._id}/discussions?${scope}`, { content: 'x' }],
          [w.alice.api, 'PATCH', `/api/v1/discussions/${d._id}?${scope}`, { content: 'x' }],
          [w.alice.api, 'DELETE', `/api/v1/discussions/${d._id}?${scope}`],
        );
      }
      cases.push(
        [w.alice.api, 'POST', `/api/v1/cards/${newId()}/comments`, { content: 'x' }],
        [w.alice.api, 'GET', `/api/v1/cards/${newId()}/comments`],
        [w.alice.api, 'GET', `/api/v1/comments/${newId()}`],
        [w.alice.api, 'GET', `/api/v1/comments/${d._id}`],
        [w.alice.api, 'PATCH', `/api/v1/comments/${newId()}`, { content: 'x' }],
        [w.alice.api, 'DELETE', `/api/v1/comments/${newId()}`],
        [w.alice.api, 'POST', `/api/v1/comments/${newId()}/discussions`, { content: 'x' }],
        [w.alice.api, 'PATCH', `/api/v1/discussions/${newId()}`, { content: 'x' }],
        [w.alice.api, 'DELETE', `/api/v1/discussions/${newId()}`],
        // a comment id is not a discussion id, nor the other way round
        [w.alice.api, 'PATCH', `/api/v1/discussions/${c._id}`, { content: 'x' }],
        [w.alice.api, 'DELETE', `/api/v1/comments/${d._id}`],
      );
      for (const [api, method, url, body] of cases) {
        const res = await api(method, url, body);
        assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
        assert.equal(res.json().code, 'not_found');
      }
      assert.deepEqual(await conversation(cardId), before);
    });

    it('rejects bad input with 400 validation_failed naming the field, never 5xx, and changes nothing', async () => {
      const cardId = await newCard();
      const c = await comment(w.owner, cardId, 'target');
      const d = await reply(w.owner, c._id, 'reply');
      const before = await conversation(cardId);
      const bodies: [string, unknown, string][] = [
        ['missing content', {}, 'body.content'],
        ['empty content', { content: '' }, 'body.content'],
        ['blank content', { content: ' \n\t ' }, 'body.content'],
        ['number content', { content: 42 }, 'body.content'],
        ['null content', { content: null }, 'body.content'],
        ['too long', { content: 'x'.repeat(16_385) }, 'body.content'],
        ['unknown field', { content: 'x', creator: t.tenant.userId }, 'body.creator'],
      ];
      const writes: ['POST' | 'PATCH', string][] = [
        ['POST', `/api/v1/cards/${cardId}/comments`],
        ['PATCH', `/api/v1/comments/${c._id}`],
        ['POST', `/api/v1/comments/${c._id}/discussions`],
        ['PATCH', `/api/v1/discussions/${d._id}`],
      ];
      for (const [method, url] of writes) {
        for (const [what, body, field] of bodies) {
          const res = await w.owner(method, url, body);
          assert.equal(res.statusCode, 400, `${what} ${method} ${url}: ${res.body}`);
          assert.equal(res.json().code, 'validation_failed');
          assert.ok(
            res.json().details.some((x: { field: string }) => x.field === field),
            `${what}: ${res.body}`,
          );
        }
        const array = await w.owner(method, url, [{ content: 'x' }]);
        assert.equal(array.statusCode, 400, `array body ${method} ${url}`);
      }
      const malformed: ['GET' | 'POST' | 'PATCH' | 'DELETE', string, unknown?][] = [
        ['POST', '/api/v1/cards/nope/comments', { content: 'x' }],
        ['GET', '/api/v1/cards/ABCDEFABCDEFABCDEFABCDEF/comments'],
        ['PATCH', '/api/v1/comments/123', { content: 'x' }],
        ['DELETE', '/api/v1/comments/123'],
        ['POST', '/api/v1/comments/zzzzzzzzzzzzzzzzzzzzzzzz/discussions', { content: 'x' }],
        ['PATCH', '/api/v1/discussions/1', { content: 'x' }],
        ['DELETE', '/api/v1/discussions/1'],
        ['POST', `/api/v1/cards/${cardId}/comments?companyId=acme`, { content: 'x' }],
        ['DELETE', `/api/v1/comments/${c._id}?board=1`],
      ];
      for (const [method, url, body] of malformed) {
        const res = await w.owner(method, url, body);
        assert.equal(res.statusCode, 400, `${method} ${url}: ${res.body}`);
        assert.equal(res.json().code, 'validation_failed');
        assert.ok(res.json().details.length > 0);
      }
      const garbage = Buffer.from('{"createdAt":1}').toString('base64url');
      const wrongShape = Buffer.from(JSON.stringify(['yesterday', c._id])).toString('base64url');
      for (const query of [
        'limit=0',
        'limit=201',
        'limit=ten',
        'limit=1.5',
        'cursor=',
        'cursor=%21%21%21',
        `cursor=${garbage}`,
        `cursor=${wrongShape}`,
        'sort=asc',
      ]) {
        const res = await w.owner('GET', `/api/v1/cards/${cardId}/comments?${query}`);
        assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
        assert.equal(res.json().code, 'validation_failed');
        assert.ok(res.json().details.length > 0, query);
      }
      assert.deepEqual(await conversation(cardId), before);
    });

    it('needs an API key', async () => {
      const cardId = await newCard();
      const res = await t.app.inject({ method: 'POST', url: `/api/v1/cards/${cardId}/comments`, payload: { content: 'x' } });
      assert.equal(res.statusCode, 401);
      assert.equal((await t.app.inject({ method: 'GET', url: `/api/v1/cards/${cardId}/comments` })).statusCode, 401);
    });
  });
}

describeTiers('comment and discussion routes', {
  engines: ENGINES,
  given: async (t, api) => {
    const listId = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
    return (await api('POST', '/api/v1/cards', { list: listId, name: 'c' })).json().card;
  },
  calls: async (api, card) => {
    const c = (await api('POST', `/api/v1/cards/${card._id}/comments`, { content: 'x' })).json().comment;
    await api('GET', `/api/v1/cards/${card._id}/comments?limit=10`);
    await api('GET', `/api/v1/comments/${c._id}`);
    await api('PATCH', `/api/v1/comments/${c._id}`, { content: 'y' });
    const d = (await api('POST', `/api/v1/comments/${c._id}/discussions`, { content: 'x' })).json().discussion;
    await api('PATCH', `/api/v1/discussions/${d._id}`, { content: 'y' });
    await api('DELETE', `/api/v1/discussions/${d._id}`);
    await api('DELETE', `/api/v1/comments/${c._id}`);
  },
  expected: [
    ['POST /api/v1/cards/:cardId/comments', 'low'],
    ['GET /api/v1/cards/:cardId/comments', 'very-low'],
    ['GET /api/v1/comments/:commentId', 'very-low'],
    ['PATCH /api/v1/comments/:commentId', 'low'],
    ['POST /api/v1/comments/:commentId/discussions', 'low'],
    ['PATCH /api/v1/discussions/:discussionId', 'low'],
    ['DELETE /api/v1/discussions/:discussionId', 'low'],
    ['DELETE /api/v1/comments/:commentId', 'low'],
  ],
});
