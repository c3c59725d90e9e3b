import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { authenticate } from '../../src/domain/account/service.ts';
import { createCard } from '../../src/domain/cards/service.ts';
import { createCheer } from '../../src/domain/cheers/service.ts';
import {
  createComment,
  createDiscussion,
  deleteComment,
  deleteDiscussion,
  listComments,
  updateComment,
  updateDiscussion,
} from '../../src/domain/comments/service.ts';
import type { Caller } from '../../src/domain/shared/caller.ts';
import { DomainError } from '../../src/domain/shared/errors.ts';
import { newId } from '../../src/domain/shared/ids.ts';
import type { Comment } from '../../src/schemas/comments.ts';
import { addMember, addTeam, seedBoard } from '../support/fixtures.ts';
import { buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { holdLocks, waitingFor } from '../support/held-locks.ts';

for (const engine of ENGINES) {
  describe(`comment storage, order and concurrency [${engine}]`, () => {
    let t: TestApp;
    let owner: Caller;
    let member: Caller;
    let listId: string;

    before(async () => {
      t = await buildTestApp(engine);
      owner = await authenticate(t.services, t.tenant.apiKey);
      const m = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'm@acme.test' });
      member = await authenticate(t.services, m.apiKey);
      listId = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
    });
    after(() => t.dispose());

    const newCard = async () => (await createCard(t.services, owner, {}, { list: listId, name: 'Card' }))._id;
    const cardVersion = async (cardId: string) =>
      (await t.services.db.selectFrom('cards').select('version').where('id', '=', cardId).executeTakeFirstOrThrow()).version;
    async function everyComment(cardId: string, limit: number, between?: (page: number) => Promise<void>): Promise<Comment[]> {
      const seen: Comment[] = [];
      let cursor: string | undefined;
      for (let page = 0; ; page++) {
        const result = await listComments(t.services, owner, cardId, {}, { limit, cursor });
        seen.push(...result.comments);
        if (!result.nextCursor) return seen;
        cursor = result.nextCursor;
        await between?.(page);
      }
    }

    it('paging while comments are added neither repeats nor skips one', async () => {
      const cardId = await newCard();
      for (let i = 0; i < 7; i++) await createComment(t.services, owner, cardId, {}, `before ${i}`);
      let added = 0;
      const seen = await everyComment(cardId, 3, async (page) => {
        if (page < 3) {
          // several at once, between pages, by two people
          await Promise.all([0, 1, 2].map((i) => createComment(t.services, i % 2 ? owner : member, cardId, {}, `during ${page}.${i}`)));
          added += 3;
        }
      });
      const ids = seen.map((c) => c._id);
      assert.equal(new Set(ids).size, ids.length, 'no comment twice');
      assert.equal(ids.length, 7 + added, 'none skipped');
      const stored = await t.services.db.selectFrom('comments').select('id').where('card_id', '=', cardId).orderBy('created_at').orderBy('id').execute();
      assert.deepEqual(
        ids,
        stored.map((r) => r.id),
      );
    });

    it('a comment made while the newest one carries a later clock still sorts last (createdAt never goes back)', async () => {
      const cardId = await newCard();
      const first = await createComment(t.services, owner, cardId, {}, 'first');
      // a comment stamped by a server whose clock runs an hour ahead
      const ahead = new Date(Date.now() + 3_600_000).toISOString();
      const aheadId = newId();
      await t.services.db
        .insertInto('comments')
        .values({
          id: aheadId,
          company_id: t.tenant.companyId,
          team_id: t.tenant.teamId,
          card_id: cardId,
          creator_id: member.userId,
          content: 'ahead',
          created_at: ahead,
          updated_at: ahead,
          version: 0,
        })
        .execute();
      const page1 = await listComments(t.services, owner, cardId, {}, { limit: 2 });
      assert.deepEqual(
        page1.comments.map((c) => c._id),
        [first._id, aheadId],
      );
      assert.equal(page1.nextCursor, null);
      const later = await createComment(t.services, owner, cardId, {}, 'later');
      assert.equal(later.createdAt, new Date(Date.parse(ahead) + 1).toISOString());
      const all = await everyComment(cardId, 2);
      assert.deepEqual(
        all.map((c) => c.content),
        ['first', 'ahead', 'later'],
      );
      // the cursor of a full page that ended at `ahead` leads to the later comment
      const again = await listComments(t.services, owner, cardId, {}, { limit: 2 });
      assert.ok(again.nextCursor);
      const rest = await listComments(t.services, owner, cardId, {}, { limit: 2, cursor: again.nextCursor });
      assert.deepEqual(
        rest.comments.map((c) => c._id),
        [later._id],
      );
    });

    it('20 parallel comments on one card: all stored, __v 20 higher, createdAt strictly increasing in card order', async () => {
      const cardId = await newCard();
      const before = await cardVersion(cardId);
      const made = await Promise.all(Array.from({ length: 20 }, (_, i) => createComment(t.services, i % 2 ? owner : member, cardId, {}, `c${i}`)));
      assert.equal(new Set(made.map((c) => c._id)).size, 20);
      assert.equal(await cardVersion(cardId), before + 20);
      const listed = (await listComments(t.services, owner, cardId, {}, { limit: 50 })).comments;
      assert.equal(listed.length, 20);
      for (let i = 1; i < listed.length; i++) assert.ok(listed[i - 1]!.createdAt < listed[i]!.createdAt, 'strictly increasing');
    });

    it('10 parallel replies on one comment: the comment __v grows by 10 and they list in creation order', async () => {
      const cardId = await newCard();
      const parent = await createComment(t.services, owner, cardId, {}, 'parent');
      const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => createDiscussion(t.services, member, parent._id, {}, `r${i}`)));
      const [listed] = (await listComments(t.services, owner, cardId, {}, { limit: 1 })).comments;
      assert.equal(listed?.__v, 10);
      assert.equal(listed?.discussions.length, 10);
      const byCreation = [...replies].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
      assert.deepEqual(
        listed?.discussions.map((d) => d._id),
        byCreation.map((d) => d._id),
      );
      assert.equal(new Set(replies.map((r) => r.createdAt)).size, 10, 'no two replies share a createdAt');
    });

    it('an edit racing a delete either lands first or is a 404; never a 500, and the comment ends deleted', async () => {
      for (let round = 0; round < 5; round++) {
        const cardId = await newCard();
        const c = await createComment(t.services, member, cardId, {}, 'racing');
        const [edit, removal] = await Promise.allSettled([
          updateComment(t.services, member, c._id, {}, 'edited'),
          deleteComment(t.services, member, c._id, {}),
        ]);
        assert.equal(removal.status, 'fulfilled');
        if (edit.status === 'rejected') {
          assert.ok(edit.reason instanceof DomainError, String(edit.reason));
          assert.equal(edit.reason.status, 404);
        }
        const rows = await t.services.db.selectFrom('comments').select('id').where('card_id', '=', cardId).execute();
        assert.deepEqual(rows, []);
      }
    });

    it('two parallel deletes of one comment: one answers it, the other is a 404', async () => {
      const cardId = await newCard();
      const c = await createComment(t.services, member, cardId, {}, 'twice');
      const results = await Promise.allSettled([deleteComment(t.services, member, c._id, {}), deleteComment(t.services, owner, c._id, {})]);
      assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
      const failure = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      assert.equal((failure.reason as DomainError).status, 404);
      assert.equal(await cardVersion(cardId), 2, 'created once, deleted once');
    });

    /**
     * Runs `write` while another transaction holds the card's row lock, and lets that transaction move
     * the card to team `toTeam` and commit once `write` waits for the lock (seen in pg_stat_activity,
     * no sleeping): what `write` read before it asked for the lock is then out of date.
     */
    async function whileCardMoves<T>(cardId: string, toTeam: string, write: () => Promise<T>): Promise<PromiseSettledResult<T>> {
      const move = await holdLocks(
        t.services.db,
        (trx) => sql`select id from cards where id = ${cardId} for update`.execute(trx),
        async (trx) => {
          await trx.updateTable('cards').set({ team_id: toTeam }).where('id', '=', cardId).execute();
          for (const table of ['comments', 'discussions', 'cheers'] as const) {
            await trx.updateTable(table).set({ team_id: toTeam }).where('card_id', '=', cardId).execute();
          }
        },
      );
      let settled = false;
      const result = Promise.allSettled([write()]).finally(() => (settled = true));
      // until the write waits for the card's lock (or ended without asking for it)
      while (!settled && (await waitingFor(t.services.db, move.pid)).length === 0) {
        // not yet: look again
      }
      await move.release();
      return (await result)[0] as PromiseSettledResult<T>;
    }

    if (engine === 'postgres') {
      it('judges reach by the card as it is once locked: a card moved meanwhile to a team the caller left is a 404, and nothing is written', async () => {
        const elsewhere = await addTeam(t.services, t.tenant.companyId, 'Elsewhere', [owner.userId]);
        const cardId = await newCard();
        const parent = await createComment(t.services, member, cardId, {}, 'before the move');
        const reply = await createDiscussion(t.services, member, parent._id, {}, 'reply before the move');
        const writes: [string, () => Promise<unknown>][] = [
          ['create comment', () => createComment(t.services, member, cardId, {}, 'after the move')],
          ['update comment', () => updateComment(t.services, member, parent._id, {}, 'edited after the move')],
          ['create discussion', () => createDiscussion(t.services, member, parent._id, {}, 'after the move')],
          ['update discussion', () => updateDiscussion(t.services, member, reply._id, {}, 'edited after the move')],
          ['delete discussion', () => deleteDiscussion(t.services, member, reply._id, {})],
          ['delete comment', () => deleteComment(t.services, member, parent._id, {})],
          ['cheer the card', () => createCheer(t.services, member, 'card', cardId, {}, { content: '👍' })],
          ['cheer the reply', () => createCheer(t.services, member, 'discussion', reply._id, {}, { content: '👍' })],
        ];
        for (const [what, write] of writes) {
          await t.services.db.updateTable('cards').set({ team_id: t.tenant.teamId }).where('id', '=', cardId).execute();
          const before = await cardVersion(cardId);
          const result = await whileCardMoves(cardId, elsewhere, write);
          assert.equal(result.status, 'rejected', `${what}: the member is not in the card's new team`);
          assert.equal(((result as PromiseRejectedResult).reason as DomainError).status, 404, what);
          assert.equal(await cardVersion(cardId), before, `${what}: nothing changed`);
        }
        const db = t.services.db;
        assert.deepEqual(
          (await db.selectFrom('comments').select('content').where('card_id', '=', cardId).execute()).map((c) => c.content),
          ['before the move'],
        );
        assert.equal((await db.selectFrom('discussions').select('id').where('card_id', '=', cardId).execute()).length, 1);
        assert.deepEqual(await db.selectFrom('cheers').select('id').where('card_id', '=', cardId).execute(), []);
      });
    }

    it('deleting a comment removes its replies and every cheer under it, and nothing of other comments', async () => {
      const cardId = await newCard();
      const doomed = await createComment(t.services, owner, cardId, {}, 'doomed');
      const kept = await createComment(t.services, owner, cardId, {}, 'kept');
      const r = await createDiscussion(t.services, member, doomed._id, {}, 'reply');
      const keptReply = await createDiscussion(t.services, member, kept._id, {}, 'kept reply');
      await createCheer(t.services, member, 'comment', doomed._id, {}, { content: '👍' });
      await createCheer(t.services, owner, 'discussion', r._id, {}, { content: '👍' });
      const keptCheer = await createCheer(t.services, owner, 'discussion', keptReply._id, {}, { content: '👍' });
      const cardCheer = await createCheer(t.services, member, 'card', cardId, {}, { content: '🎉' });
      await deleteComment(t.services, owner, doomed._id, {});
      const db = t.services.db;
      assert.deepEqual(
        (await db.selectFrom('discussions').select('id').where('card_id', '=', cardId).execute()).map((x) => x.id),
        [keptReply._id],
      );
      assert.deepEqual(
        (await db.selectFrom('cheers').select('id').where('card_id', '=', cardId).orderBy('created_at').execute()).map((x) => x.id),
        [keptCheer._id, cardCheer._id],
      );
      // and deleting a reply removes its cheers only
      await deleteDiscussion(t.services, member, keptReply._id, {});
      assert.deepEqual(
        (await db.selectFrom('cheers').select('id').where('card_id', '=', cardId).execute()).map((x) => x.id),
        [cardCheer._id],
      );
      const [left] = (await listComments(t.services, owner, cardId, {}, { limit: 5 })).comments;
      assert.equal(left?._id, kept._id);
      assert.deepEqual(left?.discussions, []);
    });
  });
}
