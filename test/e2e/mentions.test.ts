/**
 * Mentions, notifications in words, and watching a card, through the API on both engines: `@Handle`
 * in a comment, a reply or a description tells the person once (an edit only the newly mentioned),
 * and only people who reach the card; the list of notifications tells who did what where, with a
 * snippet, and nothing of a card the reader no longer reaches; a watcher is told as a member is.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mentionedIn } from '../../src/domain/notifications/mentions.ts';
import { addMember, seedBoard } from '../support/fixtures.ts';
import { type Api, apiClient, buildTestApp, ENGINES, otherCompany, type TestApp } from '../support/harness.ts';

interface Listed {
  _id: string;
  type: string;
  card: string | null;
  comment: string | null;
  discussion: string | null;
  actor: string | null;
  actorName: string | null;
  cardName: string | null;
  board: string | null;
  boardName: string | null;
  snippet: string | null;
}

describe('mention handles', () => {
  const people = [
    { id: 'ana', full_name: 'Ana Lopez' },
    { id: 'al', full_name: 'Al' },
    { id: 'bo', full_name: 'Bo Chen' },
  ];
  it('match `@` and the name without spaces, in any case, standing alone', () => {
    assert.deepEqual([...mentionedIn('thanks @AnaLopez!', people)], ['ana']);
    assert.deepEqual([...mentionedIn('(@analopez) and @BOCHEN.', people)].sort(), ['ana', 'bo']);
    assert.deepEqual([...mentionedIn('@Al, see @AnaLopez', people)].sort(), ['al', 'ana']);
  });
  it('leave out emails, longer words, and code', () => {
    assert.deepEqual([...mentionedIn('mail ana@AnaLopez.test or @AnaLopezz', people)], []);
    assert.deepEqual([...mentionedIn('`@AnaLopez` and\n```\n@BoChen\n```\n', people)], []);
    assert.deepEqual([...mentionedIn('no handle here', people)], []);
  });
});

for (const engine of ENGINES) {
  describe(`mentions, words and watching [${engine}]`, () => {
    let t: TestApp;
    let owner: Api;
    let ana: { userId: string; api: Api };
    let bo: { userId: string; api: Api };
    let cy: { userId: string; api: Api };
    let outsider: { userId: string; api: Api };
    let boardId: string;
    let listId: string;

    before(async () => {
      t = await buildTestApp(engine);
      owner = apiClient(t, t.tenant.apiKey);
      const member = async (email: string, fullName: string, teamIds: string[]) => {
        const made = await addMember(t.services, { companyId: t.tenant.companyId, teamIds, email, fullName });
        return { userId: made.userId, api: apiClient(t, made.apiKey) };
      };
      ana = await member('ana@acme.test', 'Ana Lopez', [t.tenant.teamId]);
      bo = await member('bo@acme.test', 'Bo Chen', [t.tenant.teamId]);
      cy = await member('cy@acme.test', 'Cy Moss', [t.tenant.teamId]);
      // of the company, not of the card's team: the card is out of reach
      outsider = await member('olaf@acme.test', 'Olaf Out', []);
      ({
        boardId,
        listIds: [listId = ''],
      } = await seedBoard(t.services, t.tenant, { lists: 1 }));
    });
    after(() => t.dispose());

    async function newCard(name: string, description?: string): Promise<string> {
      const res = await owner('POST', '/api/v1/cards', { list: listId, name, ...(description ? { description } : {}) });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().card._id;
    }
    async function told(api: Api): Promise<Listed[]> {
      const res = await api('GET', '/api/v1/notifications');
      assert.equal(res.statusCode, 200, res.body);
      return res.json().notifications;
    }
    async function mentionsOf(userId: string, cardId: string): Promise<number> {
      const rows = await t.services.db
        .selectFrom('notifications')
        .select('id')
        .where('user_id', '=', userId)
        .where('card_id', '=', cardId)
        .where('type', '=', 'card.mentioned')
        .execute();
      return rows.length;
    }

    it('a comment tells the people it mentions, in words, with a snippet; the writer and those out of reach are told nothing', async () => {
      const cardId = await newCard('Fix login');
      const res = await owner('POST', `/api/v1/cards/${cardId}/comments`, {
        content: 'I pushed the fix, @AnaLopez please check; @OlafOut and @OliveOwner too',
      });
      assert.equal(res.statusCode, 201, res.body);
      const commentId = res.json().comment._id;
      const [first, ...more] = await told(ana.api);
      assert.deepEqual(more, []);
      assert.deepEqual(
        {
          type: first?.type,
          card: first?.card,
          comment: first?.comment,
          actorName: first?.actorName,
          cardName: first?.cardName,
          board: first?.board,
          boardName: first?.boardName,
          snippet: first?.snippet,
        },
        {
          type: 'card.mentioned',
          card: cardId,
          comment: commentId,
          actorName: 'Olive Owner',
          cardName: 'Fix login',
          board: boardId,
          boardName: 'Board',
          snippet: 'I pushed the fix, @AnaLopez please check; @OlafOut and @OliveOwner too',
        },
      );
      assert.deepEqual(await told(outsider.api), [], 'a handle of someone outside reach tells nobody');
      assert.deepEqual(await told(owner), [], 'nobody is told of their own mention');
      assert.deepEqual(await told(bo.api), [], 'not mentioned, not a member');
    });

    it('editing tells only the newly mentioned; a member mentioned is told of the mention, not twice', async () => {
      const cardId = await newCard('Ship it');
      assert.equal((await owner('POST', `/v2/cards/${cardId}/members`, { members: [bo.userId] })).statusCode, 200);
      const made = await owner('POST', `/api/v1/cards/${cardId}/comments`, { content: 'Ready, @BoChen?' });
      const commentId = made.json().comment._id;
      const boTold = (await told(bo.api)).filter((n) => n.card === cardId);
      assert.deepEqual(
        boTold.map((n) => n.type),
        ['card.mentioned', 'card.assigned'],
        'the mention replaces the comment notice',
      );
      const edit = await owner('PATCH', `/api/v1/comments/${commentId}`, { content: 'Ready, @BoChen? And @CyMoss' });
      assert.equal(edit.statusCode, 200, edit.body);
      assert.equal(await mentionsOf(bo.userId, cardId), 1, 'Bo was mentioned before: not told again');
      assert.equal(await mentionsOf(cy.userId, cardId), 1, 'Cy is newly mentioned');
      await owner('PATCH', `/api/v1/comments/${commentId}`, { content: 'Ready, @CyMoss? (and @bochen)' });
      assert.equal(await mentionsOf(bo.userId, cardId), 1);
      assert.equal(await mentionsOf(cy.userId, cardId), 1);

      // a reply mentions too; its comment's author, mentioned in it, is told once
      const reply = await ana.api('POST', `/api/v1/comments/${commentId}/discussions`, { content: 'On it @OliveOwner and @CyMoss' });
      assert.equal(reply.statusCode, 201, reply.body);
      const replyId = reply.json().discussion._id;
      const ownerTold = (await told(owner)).filter((n) => n.card === cardId);
      assert.deepEqual(
        ownerTold.map((n) => [n.type, n.discussion, n.actorName, n.snippet]),
        [['card.mentioned', replyId, 'Ana Lopez', 'On it @OliveOwner and @CyMoss']],
      );
      assert.equal(await mentionsOf(cy.userId, cardId), 2);
      await ana.api('PATCH', `/api/v1/discussions/${replyId}`, { content: 'On it @OliveOwner, @CyMoss and @BoChen' });
      assert.equal(await mentionsOf(bo.userId, cardId), 2, 'the edit newly mentions Bo');
      assert.equal(await mentionsOf(cy.userId, cardId), 2);
    });

    it('a description tells the people it newly mentions, at creation and on each update', async () => {
      const cardId = await newCard('Plan', 'Draft by @AnaLopez');
      assert.equal(await mentionsOf(ana.userId, cardId), 1);
      const [latest] = await told(ana.api);
      assert.deepEqual([latest?.type, latest?.comment, latest?.snippet], ['card.mentioned', null, 'Draft by @AnaLopez']);
      assert.equal((await owner('PATCH', `/api/v1/cards/${cardId}`, { description: 'Draft by @AnaLopez, review by @BoChen' })).statusCode, 200);
      assert.equal(await mentionsOf(ana.userId, cardId), 1);
      assert.equal(await mentionsOf(bo.userId, cardId), 1);
      assert.equal((await owner('PATCH', `/api/v1/cards/${cardId}`, { name: 'Plan B' })).statusCode, 200);
      assert.equal(await mentionsOf(bo.userId, cardId), 1, 'an update without a description tells nobody');
    });

    it('a long snippet is cut with an ellipsis; a card out of reach is told without its words', async () => {
      const cardId = await newCard('Long one');
      const long = `@AnaLopez ${'word '.repeat(60)}end`;
      await owner('POST', `/api/v1/cards/${cardId}/comments`, { content: long });
      const [latest] = await told(ana.api);
      assert.ok(latest?.snippet?.endsWith('…'), latest?.snippet ?? 'no snippet');
      assert.ok((latest?.snippet?.length ?? 0) <= 140);

      // Ana leaves the team: her notification stays, its card's names and text do not show
      await t.services.db.deleteFrom('team_members').where('user_id', '=', ana.userId).execute();
      try {
        const [gone] = await told(ana.api);
        assert.equal(gone?._id, latest?._id);
        assert.deepEqual([gone?.cardName, gone?.boardName, gone?.board, gone?.snippet], [null, null, null, null]);
        assert.equal(gone?.actorName, 'Olive Owner');
      } finally {
        await t.services.db
          .insertInto('team_members')
          .values({ team_id: t.tenant.teamId, user_id: ana.userId, created_at: new Date().toISOString() })
          .execute();
      }
    });

    it('a watcher is told of comments as a member is; unwatching stops it; watching is out of reach as the card is', async () => {
      const cardId = await newCard('Watched');
      assert.deepEqual((await cy.api('GET', `/api/v1/cards/${cardId}/watch`)).json().watching, false);
      const watch = await cy.api('POST', `/api/v1/cards/${cardId}/watch`);
      assert.equal(watch.statusCode, 200, watch.body);
      assert.equal(watch.json().watching, true);
      assert.equal((await cy.api('POST', `/api/v1/cards/${cardId}/watch`)).json().watching, true, 'again: no change');
      assert.equal((await cy.api('GET', `/api/v1/cards/${cardId}/watch`)).json().watching, true);
      assert.equal((await bo.api('GET', `/api/v1/cards/${cardId}/watch`)).json().watching, false, "one's own");
      const events = await t.services.db
        .selectFrom('events')
        .select(['type', 'user_id'])
        .where('card_id', '=', cardId)
        .where('type', 'like', 'card.%watched')
        .execute();
      assert.deepEqual(
        events.map((e) => [e.type, e.user_id]),
        [['card.watched', cy.userId]],
      );

      await owner('POST', `/api/v1/cards/${cardId}/comments`, { content: 'Progress' });
      const cyTold = (await told(cy.api)).filter((n) => n.card === cardId);
      assert.deepEqual(
        cyTold.map((n) => [n.type, n.actorName, n.cardName, n.snippet]),
        [['comment.created', 'Olive Owner', 'Watched', 'Progress']],
      );

      const unwatch = await cy.api('DELETE', `/api/v1/cards/${cardId}/watch`);
      assert.equal(unwatch.statusCode, 200, unwatch.body);
      assert.equal(unwatch.json().watching, false);
      await owner('POST', `/api/v1/cards/${cardId}/comments`, { content: 'More' });
      assert.equal((await told(cy.api)).filter((n) => n.card === cardId).length, 1, 'no more after unwatching');

      assert.equal((await outsider.api('POST', `/api/v1/cards/${cardId}/watch`)).statusCode, 404);
      assert.equal((await outsider.api('GET', `/api/v1/cards/${cardId}/watch`)).statusCode, 404);
      const other = await otherCompany(t);
      assert.equal((await other.api('POST', `/api/v1/cards/${cardId}/watch`)).statusCode, 404);
    });

    it('a watcher who leaves the team is told nothing more of the card', async () => {
      const cardId = await newCard('Left behind');
      assert.equal((await bo.api('POST', `/api/v1/cards/${cardId}/watch`)).statusCode, 200);
      await t.services.db.deleteFrom('team_members').where('user_id', '=', bo.userId).execute();
      try {
        await owner('POST', `/api/v1/cards/${cardId}/comments`, { content: 'Secret plans' });
        const rows = await t.services.db.selectFrom('notifications').select('id').where('user_id', '=', bo.userId).where('card_id', '=', cardId).execute();
        assert.deepEqual(rows, []);
      } finally {
        await t.services.db.insertInto('team_members').values({ team_id: t.tenant.teamId, user_id: bo.userId, created_at: new Date().toISOString() }).execute();
      }
    });
  });
}
