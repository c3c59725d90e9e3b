import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authenticate } from '../../src/domain/account/service.ts';
import { addLink } from '../../src/domain/attachments/service.ts';
import { createCard, loadCard } from '../../src/domain/cards/service.ts';
import { createCheer, deleteCheer } from '../../src/domain/cheers/service.ts';
import { createComment, createDiscussion, listComments } from '../../src/domain/comments/service.ts';
import type { Caller } from '../../src/domain/shared/caller.ts';
import { DomainError } from '../../src/domain/shared/errors.ts';
import { newId, nowIso } from '../../src/domain/shared/ids.ts';
import { Cheer } from '../../src/schemas/records.ts';
import { addMember, seedBoard } from '../support/fixtures.ts';
import { buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { assertSchema } from '../support/schema.ts';

async function rejection(promise: Promise<unknown>): Promise<DomainError> {
  const [result] = await Promise.allSettled([promise]);
  assert.equal(result?.status, 'rejected', 'expected a refusal');
  const reason = (result as PromiseRejectedResult).reason;
  assert.ok(reason instanceof DomainError, String(reason));
  return reason;
}

for (const engine of ENGINES) {
  describe(`cheers: truthful fields, where they show, one per content [${engine}]`, () => {
    let t: TestApp;
    let owner: Caller;
    let alice: Caller;
    let bob: Caller;
    let listId: string;

    before(async () => {
      t = await buildTestApp(engine);
      owner = await authenticate(t.services, t.tenant.apiKey);
      const { companyId, teamId } = t.tenant;
      alice = await authenticate(t.services, (await addMember(t.services, { companyId, teamIds: [teamId], email: 'a@acme.test' })).apiKey);
      bob = await authenticate(t.services, (await addMember(t.services, { companyId, teamIds: [teamId], email: 'b@acme.test' })).apiKey);
      await t.services.db.updateTable('users').set({ photo_url: 'https://img.test/bob.png' }).where('id', '=', bob.userId).execute();
      listId = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
    });
    after(() => t.dispose());

    const newCard = async () => (await createCard(t.services, owner, {}, { list: listId, name: 'Card' }))._id;
    const version = async (table: 'cards' | 'comments' | 'discussions' | 'attachments', id: string) =>
      (await t.services.db.selectFrom(table).select('version').where('id', '=', id).executeTakeFirstOrThrow()).version;

    /** An attachment on a checklist item, written to storage (the checklist routes are another part). */
    async function checklistItemAttachment(cardId: string, creatorId: string) {
      const now = nowIso();
      const base = { company_id: t.tenant.companyId, team_id: t.tenant.teamId, card_id: cardId, created_at: now, updated_at: now, version: 0 };
      const checklistId = newId();
      const itemId = newId();
      const attachmentId = newId();
      const db = t.services.db;
      await db
        .insertInto('checklists')
        .values({ ...base, id: checklistId, name: 'Steps', position: 1024, creator_id: creatorId })
        .execute();
      await db
        .insertInto('checklist_items')
        .values({
          ...base,
          id: itemId,
          checklist_id: checklistId,
          name: 'Step',
          position: 1024,
          date: null,
          complete_status: 0,
          complete_set_at: null,
          creator_id: creatorId,
        })
        .execute();
      await db
        .insertInto('attachments')
        .values({
          ...base,
          id: attachmentId,
          checklist_item_id: itemId,
          kind: 'link',
          name: 'spec',
          original_name: 'https://x.test',
          link_url: 'https://x.test',
          storage_key: null,
          mime_type: 'text/uri-list',
          size_bytes: 0,
          creator_id: creatorId,
          is_deleted: 0,
          deleted_at: null,
        })
        .execute();
      return { itemId, attachmentId };
    }

    it('fills every field truthfully for cheers on a card, a comment, a discussion and attachments', async () => {
      const cardId = await newCard(); // made by the owner
      const comment = await createComment(t.services, alice, cardId, {}, 'by alice');
      const reply = await createDiscussion(t.services, owner, comment._id, {}, 'by owner');
      const { attachment } = await addLink(t.services, alice, cardId, {}, { url: 'https://example.test/doc', name: 'Doc' });
      const onItem = await checklistItemAttachment(cardId, alice.userId);

      const expectations = [
        { type: 'card', id: cardId, receiver: owner.userId, secondary: { id: cardId, type: 'card' }, comment: '' },
        { type: 'comment', id: comment._id, receiver: alice.userId, secondary: { id: cardId, type: 'card' }, comment: comment._id },
        { type: 'discussion', id: reply._id, receiver: owner.userId, secondary: { id: comment._id, type: 'comment' }, comment: comment._id },
        { type: 'attachment', id: attachment._id, receiver: alice.userId, secondary: { id: cardId, type: 'card' }, comment: '' },
        { type: 'attachment', id: onItem.attachmentId, receiver: alice.userId, secondary: { id: onItem.itemId, type: 'checklistItem' }, comment: '' },
      ] as const;
      for (const e of expectations) {
        const cheer = await createCheer(t.services, bob, e.type, e.id, {}, { content: '  🎉 ' });
        assertSchema(Cheer, cheer);
        assert.deepEqual(
          { ...cheer, _id: undefined, createdAt: undefined, updatedAt: undefined, notification: undefined },
          {
            _id: undefined,
            content: '🎉',
            creator: { _id: bob.userId, photoUrl: 'https://img.test/bob.png' },
            receiver: e.receiver,
            primaryParent: { id: e.id, type: e.type },
            secondaryParent: e.secondary,
            isNotified: true,
            comment: e.comment,
            card: cardId,
            featureType: e.type,
            company: t.tenant.companyId,
            team: t.tenant.teamId,
            createdAt: undefined,
            updatedAt: undefined,
            __v: 0,
            notification: undefined,
          },
          `${e.type} ${e.id}`,
        );
        assert.equal(cheer.createdAt, cheer.updatedAt);
        // `notification` names the receiver's notification of this very cheer, and nobody else has one
        const told = await t.services.db.selectFrom('notifications').selectAll().where('cheer_id', '=', cheer._id).execute();
        assert.deepEqual(
          told.map((n) => [n.id, n.user_id, n.type, n.actor_user_id, n.card_id]),
          [[cheer.notification, e.receiver, 'cheer.received', bob.userId, cardId]],
          `${e.type} ${e.id}`,
        );
      }
    });

    it('a cheer on one\'s own work notifies nobody and says so: isNotified false, notification ""', async () => {
      const cardId = await newCard(); // made by the owner
      const comment = await createComment(t.services, owner, cardId, {}, 'mine');
      for (const [type, id] of [
        ['card', cardId],
        ['comment', comment._id],
      ] as const) {
        const cheer = await createCheer(t.services, owner, type, id, {}, { content: '🙌' });
        assert.deepEqual([cheer.isNotified, cheer.notification], [false, ''], type);
        const told = await t.services.db.selectFrom('notifications').select('id').where('cheer_id', '=', cheer._id).execute();
        assert.deepEqual(told, [], type);
      }
    });

    it('shows each cheer where its target is shown: card.cheers, attachment.cheers, comment.cheers, discussion.cheers', async () => {
      const cardId = await newCard();
      const comment = await createComment(t.services, alice, cardId, {}, 'c');
      const reply = await createDiscussion(t.services, alice, comment._id, {}, 'd');
      const { attachment } = await addLink(t.services, alice, cardId, {}, { url: 'https://example.test/a' });
      const onCard = await createCheer(t.services, bob, 'card', cardId, {}, { content: '👍' });
      const onComment = await createCheer(t.services, bob, 'comment', comment._id, {}, { content: '👍' });
      const onReply = await createCheer(t.services, bob, 'discussion', reply._id, {}, { content: '👍' });
      const onAttachment = await createCheer(t.services, bob, 'attachment', attachment._id, {}, { content: '👍' });
      const secondOnCard = await createCheer(t.services, alice, 'card', cardId, {}, { content: '👍' });

      const card = await loadCard(t.services, cardId);
      assert.deepEqual(card.cheers, [onCard, secondOnCard], 'the card shows cheers on itself only, oldest first');
      assert.deepEqual(card.attachments.find((a) => a._id === attachment._id)?.cheers, [onAttachment]);
      const [listed] = (await listComments(t.services, owner, cardId, {}, { limit: 10 })).comments;
      assert.deepEqual(listed?.cheers, [onComment]);
      assert.deepEqual(listed?.discussions[0]?.cheers, [onReply]);
    });

    it('moves __v of the card and of every record that shows the cheer', async () => {
      const cardId = await newCard();
      const comment = await createComment(t.services, alice, cardId, {}, 'c');
      const reply = await createDiscussion(t.services, alice, comment._id, {}, 'd');
      const { attachment } = await addLink(t.services, alice, cardId, {}, { url: 'https://example.test/a' });
      const state = async () => ({
        card: await version('cards', cardId),
        comment: await version('comments', comment._id),
        reply: await version('discussions', reply._id),
        attachment: await version('attachments', attachment._id),
      });
      const s0 = await state();
      const c1 = await createCheer(t.services, bob, 'card', cardId, {}, { content: 'x' });
      assert.deepEqual(await state(), { ...s0, card: s0.card + 1 });
      await createCheer(t.services, bob, 'comment', comment._id, {}, { content: 'x' });
      assert.deepEqual(await state(), { ...s0, card: s0.card + 2, comment: s0.comment + 1 });
      const c3 = await createCheer(t.services, bob, 'discussion', reply._id, {}, { content: 'x' });
      assert.deepEqual(await state(), { card: s0.card + 3, comment: s0.comment + 2, reply: s0.reply + 1, attachment: s0.attachment });
      await createCheer(t.services, bob, 'attachment', attachment._id, {}, { content: 'x' });
      assert.deepEqual(await state(), { card: s0.card + 4, comment: s0.comment + 2, reply: s0.reply + 1, attachment: s0.attachment + 1 });
      await deleteCheer(t.services, bob, 'discussion', reply._id, c3._id, {});
      await deleteCheer(t.services, bob, 'card', cardId, c1._id, {});
      assert.deepEqual(await state(), { card: s0.card + 6, comment: s0.comment + 3, reply: s0.reply + 2, attachment: s0.attachment + 1 });
    });

    it('one content once per member and thing: a repeat is a 409, also when spelled another way; others may', async () => {
      const cardId = await newCard();
      await createCheer(t.services, bob, 'card', cardId, {}, { content: 'café' });
      const repeat = await rejection(createCheer(t.services, bob, 'card', cardId, {}, { content: ' cafe\u0301 ' }));
      assert.equal(repeat.status, 409);
      assert.equal(repeat.code, 'conflict');
      await createCheer(t.services, bob, 'card', cardId, {}, { content: '👍' });
      await createCheer(t.services, alice, 'card', cardId, {}, { content: 'café' });
      const comment = await createComment(t.services, alice, cardId, {}, 'c');
      await createCheer(t.services, bob, 'comment', comment._id, {}, { content: 'café' });
      const rows = await t.services.db.selectFrom('cheers').select(['creator_id', 'content', 'primary_type']).where('card_id', '=', cardId).execute();
      assert.equal(rows.length, 4);
    });

    it('parallel identical cheers: exactly one is created, the others are 409s', async () => {
      const cardId = await newCard();
      const comment = await createComment(t.services, alice, cardId, {}, 'c');
      const before = await version('cards', cardId);
      const results = await Promise.allSettled(Array.from({ length: 8 }, () => createCheer(t.services, bob, 'comment', comment._id, {}, { content: '🔥' })));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      for (const r of results) if (r.status === 'rejected') assert.equal((r.reason as DomainError).status, 409);
      const rows = await t.services.db.selectFrom('cheers').select('id').where('primary_id', '=', comment._id).execute();
      assert.equal(rows.length, 1);
      assert.equal(await version('cards', cardId), before + 1, 'refused cheers change nothing');
      assert.equal(await version('comments', comment._id), 1);
    });

    it('a deleted attachment cannot be cheered, nor its cheers deleted: 404', async () => {
      const cardId = await newCard();
      const { attachment } = await addLink(t.services, alice, cardId, {}, { url: 'https://example.test/a' });
      const cheer = await createCheer(t.services, bob, 'attachment', attachment._id, {}, { content: '👍' });
      await t.services.db.updateTable('attachments').set({ is_deleted: 1, deleted_at: nowIso() }).where('id', '=', attachment._id).execute();
      assert.equal((await rejection(createCheer(t.services, bob, 'attachment', attachment._id, {}, { content: '🎉' }))).status, 404);
      assert.equal((await rejection(deleteCheer(t.services, bob, 'attachment', attachment._id, cheer._id, {}))).status, 404);
    });

    it('only the creator deletes a cheer (403 for others, admins included); a cheer named under another target is a 404', async () => {
      const cardId = await newCard();
      const otherCard = await newCard();
      const cheer = await createCheer(t.services, bob, 'card', cardId, {}, { content: '👍' });
      for (const who of [alice, owner]) {
        const refused = await rejection(deleteCheer(t.services, who, 'card', cardId, cheer._id, {}));
        assert.equal(refused.status, 403);
      }
      assert.equal((await rejection(deleteCheer(t.services, bob, 'card', otherCard, cheer._id, {}))).status, 404);
      assert.equal((await rejection(deleteCheer(t.services, bob, 'comment', cardId, cheer._id, {}))).status, 404);
      assert.equal((await rejection(deleteCheer(t.services, bob, 'card', cardId, newId(), {}))).status, 404);
      const deleted = await deleteCheer(t.services, bob, 'card', cardId, cheer._id, {});
      assert.deepEqual(deleted, cheer, 'answers the cheer as it was');
      assert.deepEqual((await loadCard(t.services, cardId)).cheers, []);
      assert.equal((await rejection(deleteCheer(t.services, bob, 'card', cardId, cheer._id, {}))).status, 404);
    });

    it('two parallel deletes of one cheer: one answers it, the other is a 404', async () => {
      const cardId = await newCard();
      const cheer = await createCheer(t.services, bob, 'card', cardId, {}, { content: '👍' });
      const results = await Promise.allSettled([0, 1].map(() => deleteCheer(t.services, bob, 'card', cardId, cheer._id, {})));
      assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
      assert.equal(((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason as DomainError).status, 404);
      assert.equal(await version('cards', cardId), 2);
    });
  });
}
