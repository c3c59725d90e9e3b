import assert from 'node:assert/strict';
import { text } from 'node:stream/consumers';
import { after, before, describe, it } from 'node:test';
import { bootstrap } from '../../src/domain/account/bootstrap.ts';
import { authenticate } from '../../src/domain/account/service.ts';
import { moveCardsMultiTeam } from '../../src/domain/cards/move.ts';
import { createCard, loadCard } from '../../src/domain/cards/service.ts';
import type { Caller } from '../../src/domain/shared/caller.ts';
import type { DomainError } from '../../src/domain/shared/errors.ts';
import { newId } from '../../src/domain/shared/ids.ts';
import { Card } from '../../src/schemas/records.ts';
import { addCardMember, addChecklist, addCheer, addConversation, addFileAttachment, addLinkAttachment, type CardOwner } from '../support/card-parts.ts';
import { type CopyMoveWorld, copyMoveWorld } from '../support/copy-move-world.ts';
import { seedBoard } from '../support/fixtures.ts';
import { buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { assertSchema } from '../support/schema.ts';

const CHILD_TABLES = ['checklists', 'checklist_items', 'comments', 'discussions', 'cheers', 'attachments'] as const;

for (const engine of ENGINES) {
  describe(`Move Cards Multi Team (service) [${engine}]`, () => {
    let t: TestApp;
    let owner: Caller;
    let w: CopyMoveWorld;
    let beta: { companyId: string; teamId: string };
    let boardBeta: Awaited<ReturnType<typeof seedBoard>>;

    before(async () => {
      t = await buildTestApp(engine);
      w = await copyMoveWorld(t);
      // the owner also owns a second company
      beta = await bootstrap(t.services, { company: 'Beta', team: 'Beta team', email: 'owner@acme.test', fullName: 'Olive Owner' });
      boardBeta = await seedBoard(t.services, { ...beta, userId: t.tenant.userId }, { lists: 1 });
      owner = await authenticate(t.services, t.tenant.apiKey);
    });
    after(() => t.dispose());

    const core = () => ({ companyId: t.tenant.companyId, teamId: t.tenant.teamId });
    const item = (cardId: string, scope = core()) => ({ cardId, ...scope });
    const target = (list: string, scope = core()) => ({ ...scope, list });
    const newCard = (name: string, list = w.boardA.listIds[0] as string) => createCard(t.services, owner, {}, { list, name });
    const listOrder = async (listId: string) =>
      await t.services.db.selectFrom('cards').select(['id', 'position']).where('list_id', '=', listId).orderBy('position').orderBy('id').execute();

    /** A card with labels, members (alice and bob), a checklist whose items have members, comments, cheers and attachments. */
    async function fullCard(name: string) {
      const card = await newCard(name);
      const row: CardOwner = { id: card._id, company_id: card.company, team_id: card.team };
      await t.services.db
        .insertInto('card_labels')
        .values(w.boardA.labelIds.map((label_id) => ({ card_id: card._id, label_id, created_at: new Date().toISOString() })))
        .execute();
      await addCardMember(t.services, card._id, w.alice);
      await addCardMember(t.services, card._id, w.bob);
      const checklist = await addChecklist(t.services, row, t.tenant.userId, 'Todo', [
        { name: 'one', done: true, members: [w.alice, w.bob] },
        { name: 'two', members: [w.bob] },
        { name: 'three', members: [w.alice] },
      ]);
      const file = await addFileAttachment(t.services, row, w.alice, 'notes', 'moving bytes');
      await addFileAttachment(t.services, row, w.alice, 'item notes', 'item bytes', checklist.itemIds[0] as string);
      await addLinkAttachment(t.services, row, w.bob, 'old link', 'https://example.com/old', true);
      await addConversation(t.services, row, w.alice, w.bob);
      await addCheer(t.services, row, w.bob, t.tenant.userId, { type: 'card', id: card._id });
      return { card: await loadCard(t.services, card._id), checklist, file };
    }

    async function childOwners(cardId: string) {
      const owners: Record<string, { company_id: string; team_id: string; version: number; updated_at: string }[]> = {};
      for (const table of CHILD_TABLES) {
        owners[table] = await t.services.db
          .selectFrom(table)
          .select(['company_id', 'team_id', 'version', 'updated_at'])
          .where('card_id', '=', cardId)
          .orderBy('id')
          .execute();
      }
      return owners;
    }
    const itemMembers = async (itemId: string) =>
      (await t.services.db.selectFrom('checklist_item_members').select('user_id').where('item_id', '=', itemId).execute()).map((m) => m.user_id).sort();

    it('moves within a board: keeps labels and members, goes to the bottom in request order, __v + 1', async () => {
      const from = w.boardA.listIds[0] as string;
      const to = w.boardA.listIds[1] as string;
      const existing = await newCard('existing', to);
      const [c1, c2, c3] = [await newCard('c1'), await newCard('c2'), await newCard('c3')];
      await addCardMember(t.services, c3._id, w.bob);
      await t.services.db
        .insertInto('card_labels')
        .values({ card_id: c3._id, label_id: w.boardA.labelIds[0] as string, created_at: new Date().toISOString() })
        .execute();
      const sourceBefore = (await listOrder(from)).filter((c) => c.id !== c1._id && c.id !== c3._id);

      const { cards, dropped } = await moveCardsMultiTeam(t.services, owner, { cards: [item(c3._id), item(c1._id)], target: target(to) });
      for (const c of cards) assertSchema(Card, c);
      assert.deepEqual(
        cards.map((c) => c._id),
        [c3._id, c1._id],
      );
      assert.deepEqual(dropped, []);
      assert.deepEqual(
        cards.map((c) => [c.list, c.__v]),
        [
          [to, c3.__v + 1],
          [to, c1.__v + 1],
        ],
      );
      assert.deepEqual(
        cards[0]?.labels.map((l) => l._id),
        [w.boardA.labelIds[0]],
      );
      assert.deepEqual(
        cards[0]?.members.map((m) => m._id),
        [w.bob],
      );
      assert.deepEqual(
        (await listOrder(to)).map((c) => c.id),
        [existing._id, c3._id, c1._id],
      );
      assert.deepEqual(
        (await listOrder(from)).filter((c) => [c2._id, ...sourceBefore.map((s) => s.id)].includes(c.id)),
        sourceBefore,
        'the cards left behind keep their places',
      );
      assert.equal((await loadCard(t.services, c2._id)).__v, c2.__v, 'a card not moved does not change');

      // a card already in the target list goes to its bottom too
      const again = await moveCardsMultiTeam(t.services, owner, { cards: [item(existing._id)], target: target(to) });
      assert.deepEqual(
        (await listOrder(to)).map((c) => c.id),
        [c3._id, c1._id, existing._id],
      );
      assert.equal(again.cards[0]?.__v, existing.__v + 1);
    });

    it('onto another board of the team: drops the labels, keeps the members, and says so', async () => {
      const { card } = await fullCard('to board B');
      const { cards, dropped } = await moveCardsMultiTeam(t.services, owner, { cards: [item(card._id)], target: target(w.boardB.listIds[0] as string) });
      const moved = cards[0] as Card;
      assert.equal(moved.board, w.boardB.boardId);
      assert.deepEqual(moved.labels, []);
      assert.deepEqual(moved.members, card.members);
      assert.deepEqual(dropped, [{ cardId: card._id, labels: [...w.boardA.labelIds].sort(), members: [], checklistItemMembers: [], customFields: [] }]);
      assert.ok(
        Object.values(await childOwners(card._id))
          .flat()
          .every((c) => c.team_id === t.tenant.teamId),
      );
    });

    it('onto another team: everything follows the card; members not in the team are dropped and named', async () => {
      const { card, checklist, file } = await fullCard('to Ops');
      const childrenBefore = await childOwners(card._id);
      const { cards, dropped } = await moveCardsMultiTeam(t.services, owner, {
        cards: [item(card._id)],
        target: target(w.boardOps.listIds[0] as string, { companyId: t.tenant.companyId, teamId: w.opsTeam }),
      });
      const moved = cards[0] as Card;
      assertSchema(Card, moved);
      assert.deepEqual([moved.company, moved.team, moved.board, moved.list], [t.tenant.companyId, w.opsTeam, w.boardOps.boardId, w.boardOps.listIds[0]]);
      assert.equal(moved.__v, card.__v + 1);
      assert.deepEqual(moved.labels, []);
      assert.deepEqual(
        moved.members.map((m) => m._id),
        [w.alice],
      );
      const [one, two, three] = checklist.itemIds as [string, string, string];
      assert.deepEqual(await itemMembers(one), [w.alice]);
      assert.deepEqual(await itemMembers(two), []);
      assert.deepEqual(await itemMembers(three), [w.alice]);
      assert.deepEqual(dropped, [
        {
          cardId: card._id,
          labels: [...w.boardA.labelIds].sort(),
          members: [w.bob],
          checklistItemMembers: [
            { checklistItem: one, members: [w.bob] },
            { checklistItem: two, members: [w.bob] },
          ],
          customFields: [],
        },
      ]);
      // every child now belongs to Ops, each one change more, its content untouched
      const childrenAfter = await childOwners(card._id);
      for (const table of CHILD_TABLES) {
        assert.ok((childrenBefore[table]?.length ?? 0) > 0, `${table} has rows to move`);
        assert.deepEqual(
          childrenAfter[table],
          childrenBefore[table]?.map((c) => ({ ...c, company_id: t.tenant.companyId, team_id: w.opsTeam, version: c.version + 1 })),
          table,
        );
      }
      assert.deepEqual(moved.allChecklistItemsCount, card.allChecklistItemsCount);
      assert.deepEqual(moved.checklists, card.checklists);
      assert.deepEqual(moved.comments, card.comments);
      assert.deepEqual(
        moved.cheers.map((c) => [c._id, c.team]),
        card.cheers.map((c) => [c._id, w.opsTeam]),
      );
      assert.deepEqual(
        moved.attachments.map((a) => [a._id, a.team]),
        card.attachments.map((a) => [a._id, w.opsTeam]),
      );
      assert.equal(await text(await t.services.files.open(file.storageKey)), 'moving bytes', 'the bytes stay where they are');
      // bob (Core only) no longer reaches it
      const bobCaller = await authenticate(t.services, w.bobKey);
      await assert.rejects(
        moveCardsMultiTeam(t.services, bobCaller, {
          cards: [item(card._id, { companyId: t.tenant.companyId, teamId: w.opsTeam })],
          target: target(w.boardA.listIds[0] as string),
        }),
        (e: DomainError) => e.status === 404,
      );
    });

    it('onto another company the caller belongs to', async () => {
      const { card } = await fullCard('to Beta');
      const { cards, dropped } = await moveCardsMultiTeam(t.services, owner, { cards: [item(card._id)], target: target(boardBeta.listIds[0] as string, beta) });
      assert.deepEqual([cards[0]?.company, cards[0]?.team], [beta.companyId, beta.teamId]);
      assert.deepEqual(cards[0]?.members, []);
      assert.deepEqual(
        dropped[0]?.members,
        card.members.map((m) => m._id),
        'nobody of Acme is in the Beta team',
      );
      assert.equal(dropped[0]?.checklistItemMembers.length, 3);
      assert.ok(
        Object.values(await childOwners(card._id))
          .flat()
          .every((c) => c.company_id === beta.companyId && c.team_id === beta.teamId),
      );
    });

    it('is all or nothing: any failing item, or a bad target, names itself and changes nothing', async () => {
      const { card } = await fullCard('stays');
      const plain = await newCard('plain');
      const other = await bootstrap(t.services, { company: 'Other', team: 'T', email: 'x@other.test', fullName: 'X' });
      const foreignCard = await createCard(
        t.services,
        await authenticate(t.services, other.apiKey),
        {},
        { list: (await seedBoard(t.services, other, { lists: 1 })).listIds[0] as string, name: 'foreign' },
      );
      const snapshot = async () => ({
        cards: await Promise.all([card._id, plain._id, foreignCard._id].map((id) => loadCard(t.services, id))),
        children: await childOwners(card._id),
        itemMembers: await t.services.db.selectFrom('checklist_item_members').selectAll().orderBy('item_id').orderBy('user_id').execute(),
        labels: await t.services.db.selectFrom('card_labels').selectAll().orderBy('card_id').orderBy('label_id').execute(),
      });
      const before = await snapshot();
      const ops = { companyId: t.tenant.companyId, teamId: w.opsTeam };
      const cases: [string, Parameters<typeof moveCardsMultiTeam>[2], number, [number | undefined, string][]][] = [
        [
          'one card of another company, one with the wrong team, one unknown',
          {
            cards: [item(plain._id), item(foreignCard._id, { companyId: other.companyId, teamId: other.teamId }), item(card._id, ops), item(newId())],
            target: target(w.boardOps.listIds[0] as string, ops),
          },
          404,
          [
            [1, 'body.cards[1]'],
            [2, 'body.cards[2]'],
            [3, 'body.cards[3]'],
          ],
        ],
        [
          'a list of another team than the target names',
          { cards: [item(card._id)], target: target(w.boardOps.listIds[0] as string) },
          400,
          [[undefined, 'body.target.teamId']],
        ],
        [
          'a list of another company than the target names',
          { cards: [item(card._id)], target: target(w.boardOps.listIds[0] as string, { companyId: beta.companyId, teamId: w.opsTeam }) },
          400,
          [[undefined, 'body.target.companyId']],
        ],
        ['an unknown list', { cards: [item(card._id)], target: target(newId()) }, 404, [[undefined, 'body.target.list']]],
        [
          "another company's list",
          { cards: [item(card._id)], target: target(foreignCard.list, { companyId: other.companyId, teamId: other.teamId }) },
          404,
          [[undefined, 'body.target.list']],
        ],
        [
          'a card listed twice',
          { cards: [item(card._id), item(plain._id), item(card._id)], target: target(w.boardOps.listIds[0] as string, ops) },
          400,
          [[2, 'body.cards[2]']],
        ],
      ];
      for (const [what, input, status, fields] of cases) {
        await assert.rejects(moveCardsMultiTeam(t.services, owner, input), (error: DomainError) => {
          assert.equal(error.status, status, what);
          assert.deepEqual(
            error.details?.map((d) => [d.index, d.field]),
            fields,
            what,
          );
          return true;
        });
      }
      assert.deepEqual(await snapshot(), before);
    });

    it('parallel moves of the same cards in opposite orders all finish (no deadlock), each a change of every card', async () => {
      const [x, y, z] = [await newCard('x'), await newCard('y'), await newCard('z')];
      const lists = [w.boardA.listIds[1] as string, w.boardB.listIds[0] as string];
      const rounds = 6;
      const moves = Array.from({ length: rounds }, (_, i) =>
        moveCardsMultiTeam(t.services, owner, {
          cards: (i % 2 ? [z, y, x] : [x, y, z]).map((c) => item(c._id)),
          target: target(lists[i % 2] as string),
        }),
      );
      const answers = await Promise.all(moves);
      assert.equal(answers.length, rounds);
      for (const c of [x, y, z]) assert.equal((await loadCard(t.services, c._id)).__v, c.__v + rounds);
      // each answer saw its own revision of the cards: the moves applied one after another
      assert.equal(new Set(answers.map((a) => a.cards[0]?.__v)).size, rounds);
    });

    it('parallel moves into one list give every card its own place at the bottom', async () => {
      const list = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
      const cards = await Promise.all(Array.from({ length: 8 }, (_, i) => newCard(`p${i}`)));
      await Promise.all(cards.map((c) => moveCardsMultiTeam(t.services, owner, { cards: [item(c._id)], target: target(list) })));
      const positions = (await listOrder(list)).map((c) => c.position);
      assert.equal(positions.length, 8);
      assert.equal(new Set(positions).size, 8);
    });
  });
}
