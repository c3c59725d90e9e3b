/**
 * A realistic conversation on one card, through the HTTP API only: comments, replies, cheers from
 * several members, an edit, a refused edit, a deletion by a company admin, and a checklist worked
 * through to completion with a screenshot attached to an item; then the end state of the card
 * record, of the checklist and of Get Comments.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Comment } from '../../src/schemas/comments.ts';
import { Card } from '../../src/schemas/records.ts';
import { addMember, multipart, seedBoard } from '../support/fixtures.ts';
import { apiClient, bearer, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { assertSchema } from '../support/schema.ts';

type Written = { _id: string; content: string; discussions: { _id: string }[] };

for (const engine of ENGINES) {
  describe(`a discussion on a card, start to finish [${engine}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(engine);
    });
    after(() => t.dispose());

    it('ends with the comments, replies, cheers and revision the conversation made', async () => {
      const { companyId, teamId } = t.tenant;
      const people = {
        olive: { userId: t.tenant.userId, apiKey: t.tenant.apiKey },
        alice: await addMember(t.services, { companyId, teamIds: [teamId], email: 'alice@acme.test', fullName: 'Alice Analyst' }),
        bob: await addMember(t.services, { companyId, teamIds: [teamId], email: 'bob@acme.test', fullName: 'Bob Builder' }),
        carol: await addMember(t.services, { companyId, teamIds: [teamId], email: 'carol@acme.test', fullName: 'Carol Coder' }),
        // a company admin outside the team: reaches the card through the company
        dana: await addMember(t.services, { companyId, email: 'dana@acme.test', fullName: 'Dana Admin', role: 'admin' }),
      };
      const as = (who: keyof typeof people) => apiClient(t, people[who].apiKey);
      const listId = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
      let changes = 0;
      /** Checks a write's status; a write that succeeds is one change of the card. */
      async function expect(status: number, res: Promise<{ statusCode: number; body: string; json(): unknown }>) {
        const answer = await res;
        assert.equal(answer.statusCode, status, answer.body);
        if (status < 300) changes++;
        // each write answers one of these keys; the test reads the one its operation gives
        return answer.json() as {
          comment: Written;
          discussion: Written;
          cheer: Written;
          checklist: { _id: string };
          checklistItem: { _id: string };
          attachment: { _id: string };
        };
      }

      const card = (await as('olive')('POST', '/api/v1/cards', { list: listId, name: 'Launch the new pricing page' })).json().card;
      const cardId: string = card._id;
      assert.equal(card.__v, 0);
      const scope = `?companyId=${companyId}&teamId=${teamId}`;

      // Alice opens the discussion, Bob and Alice go back and forth under it
      const draft = (
        await expect(201, as('alice')('POST', `/api/v1/cards/${cardId}/comments${scope}`, { content: 'Draft copy is in the doc, please review.' }))
      ).comment;
      const review = (await expect(201, as('bob')('POST', `/api/v1/comments/${draft._id}/discussions`, { content: 'Reviewed: two nits on the FAQ.' })))
        .discussion;
      const fixed = (await expect(201, as('alice')('POST', `/api/v1/comments/${draft._id}/discussions`, { content: 'Fixed both, thanks!' }))).discussion;
      // Carol asks about the date; Olive answers in a comment of her own
      const question = (await expect(201, as('carol')('POST', `/api/v1/cards/${cardId}/comments`, { content: 'Can we ship Friday?' }))).comment;
      const answer = (await expect(201, as('olive')('POST', `/api/v1/cards/${cardId}/comments`, { content: 'Friday works if QA signs off.' }))).comment;
      const qa = (await expect(201, as('carol')('POST', `/api/v1/comments/${answer._id}/discussions`, { content: 'QA is on it.' }))).discussion;

      // cheers from several members
      const bobOnDraft = (await expect(201, as('bob')('POST', `/api/v1/comments/${draft._id}/cheers`, { content: '👍' }))).cheer;
      const carolOnDraft = (await expect(201, as('carol')('POST', `/api/v1/comments/${draft._id}/cheers`, { content: '👍' }))).cheer;
      await expect(409, as('carol')('POST', `/api/v1/comments/${draft._id}/cheers`, { content: '👍' }));
      const bobOnFixed = (await expect(201, as('bob')('POST', `/api/v1/discussions/${fixed._id}/cheers`, { content: 'Thanks!' }))).cheer;
      const oliveOnCard = (await expect(201, as('olive')('POST', `/api/v1/cards/${cardId}/cheers`, { content: '🚀' }))).cheer;
      const aliceOnCard = (await expect(201, as('alice')('POST', `/api/v1/cards/${cardId}/cheers`, { content: '🚀' }))).cheer;
      const bobOnQa = (await expect(201, as('bob')('POST', `/api/v1/discussions/${qa._id}/cheers`, { content: '🙏' }))).cheer;
      // Bob takes his cheer on the QA reply back; Alice may not take back Olive's
      await expect(200, as('bob')('DELETE', `/api/v1/discussions/${qa._id}/cheers/${bobOnQa._id}`));
      await expect(403, as('alice')('DELETE', `/api/v1/cards/${cardId}/cheers/${oliveOnCard._id}`));

      // Alice edits her comment; Bob may not
      await expect(403, as('bob')('PATCH', `/api/v1/comments/${draft._id}`, { content: 'Bob was here' }));
      const edited = (await expect(200, as('alice')('PATCH', `/api/v1/comments/${draft._id}`, { content: 'Final copy is in the doc, please review.' })))
        .comment;
      assert.equal(edited.content, 'Final copy is in the doc, please review.');

      // Carol may not delete Olive's answer; Dana, a company admin, removes it with its reply
      await expect(403, as('carol')('DELETE', `/api/v1/comments/${answer._id}`));
      const removed = (await expect(200, as('dana')('DELETE', `/api/v1/comments/${answer._id}`))).comment;
      assert.deepEqual(
        removed.discussions.map((d) => d._id),
        [qa._id],
      );

      // the launch checklist: Olive writes it, the team works it through; Bob attaches a screenshot
      const steps = (await expect(201, as('olive')('POST', `/api/v1/cards/${cardId}/checklists`, { name: 'Launch steps' }))).checklist;
      const item = async (name: string, who: keyof typeof people) =>
        (await expect(201, as('olive')('POST', `/api/v1/checklists/${steps._id}/items`, { name, members: [people[who].userId] }))).checklistItem;
      const copyItem = await item('Copy signed off', 'alice');
      const qaItem = await item('QA pass', 'carol');
      const shotItem = await item('Screenshot for the changelog', 'bob');
      const form = multipart({ name: 'pricing.png' }, { filename: 'pricing.png', contentType: 'image/png', content: Buffer.from('not really a png') });
      const upload = t.app.inject({
        method: 'POST',
        url: `/api/v1/checklist-items/${shotItem._id}/attachments`,
        headers: { ...bearer(people.bob.apiKey), ...form.headers },
        payload: form.payload,
      });
      const shot = (await expect(201, upload)).attachment;
      const carolOnShot = (await expect(201, as('carol')('POST', `/api/v1/attachments/${shot._id}/cheers`, { content: '😍' }))).cheer;
      await expect(200, as('alice')('PATCH', `/api/v1/checklist-items/${copyItem._id}/complete`, {}));
      await expect(200, as('carol')('PATCH', `/api/v1/checklist-items/${qaItem._id}/complete`, { status: true }));
      await expect(200, as('bob')('PATCH', `/api/v1/checklist-items/${shotItem._id}/complete`));
      const finishedShot = await as('olive')('GET', `/api/v1/checklist-items/${shotItem._id}`);
      assert.equal(finishedShot.statusCode, 200, finishedShot.body);
      const shotRecord = finishedShot.json().checklistItem as {
        complete: { status: boolean };
        members: { _id: string }[];
        attachments: { _id: string; name: string; creator: { _id: string }; cheers: { _id: string; receiver: string }[] }[];
      };
      assert.equal(shotRecord.complete.status, true);
      assert.deepEqual(
        shotRecord.members.map((m) => m._id),
        [people.bob.userId],
      );
      assert.deepEqual(
        shotRecord.attachments.map((a) => [a._id, a.name, a.creator._id, a.cheers.map((c) => [c._id, c.receiver])]),
        [[shot._id, 'pricing.png', people.bob.userId, [[carolOnShot._id, people.bob.userId]]]],
      );
      const download = await t.app.inject({ method: 'GET', url: `/api/v1/cards/${cardId}/attachments/${shot._id}/file`, headers: bearer(people.alice.apiKey) });
      assert.equal(download.statusCode, 200);
      assert.equal(download.body, 'not really a png');

      // the card as everyone sees it (the first look adds Olive to seen: one change more)
      const read = await as('olive')('GET', `/api/v1/cards/${cardId}`);
      assert.equal(read.statusCode, 200, read.body);
      const final = read.json().card as {
        comments: string[];
        checklists: string[];
        allChecklistItemsCount: { completed: number; total: number };
        attachments: unknown[];
        cheers: { _id: string; creator: { _id: string }; content: string; receiver: string }[];
        seen: string[];
        __v: number;
      };
      assertSchema(Card, final);
      assert.deepEqual(final.comments, [draft._id, question._id]);
      assert.deepEqual(final.checklists, [steps._id]);
      assert.deepEqual(final.allChecklistItemsCount, { completed: 3, total: 3 });
      assert.deepEqual(final.attachments, [], "an item's attachment is the item's, not the card's");
      assert.deepEqual(
        final.cheers.map((c) => c._id),
        [oliveOnCard._id, aliceOnCard._id],
      );
      assert.deepEqual(
        final.cheers.map((c) => [c.creator._id, c.content, c.receiver]),
        [
          [people.olive.userId, '🚀', people.olive.userId],
          [people.alice.userId, '🚀', people.olive.userId],
        ],
      );
      assert.deepEqual(final.seen, [people.olive.userId]);
      // every successful write moved the card's revision by exactly one, refused ones not at all
      assert.equal(changes, 24);
      assert.equal(final.__v, changes + 1);

      const page = await as('carol')('GET', `/api/v1/cards/${cardId}/comments`);
      assert.equal(page.statusCode, 200, page.body);
      const listed = page.json() as { comments: Comment[]; nextCursor: string | null };
      for (const c of listed.comments) assertSchema(Comment, c);
      assert.equal(listed.nextCursor, null);
      assert.deepEqual(
        listed.comments.map((c) => ({
          id: c._id,
          by: c.creator.fullName,
          content: c.content,
          cheers: c.cheers.map((x) => [x.creator._id, x.content, x.receiver]),
          replies: c.discussions.map((d) => ({ id: d._id, by: d.creator.fullName, content: d.content, cheers: d.cheers.map((x) => x._id) })),
        })),
        [
          {
            id: draft._id,
            by: 'Alice Analyst',
            content: 'Final copy is in the doc, please review.',
            cheers: [
              [people.bob.userId, '👍', people.alice.userId],
              [people.carol.userId, '👍', people.alice.userId],
            ],
            replies: [
              { id: review._id, by: 'Bob Builder', content: 'Reviewed: two nits on the FAQ.', cheers: [] },
              { id: fixed._id, by: 'Alice Analyst', content: 'Fixed both, thanks!', cheers: [bobOnFixed._id] },
            ],
          },
          { id: question._id, by: 'Carol Coder', content: 'Can we ship Friday?', cheers: [], replies: [] },
        ],
      );
      const [draftRecord] = listed.comments;
      assert.deepEqual(
        draftRecord?.cheers.map((c) => c._id),
        [bobOnDraft._id, carolOnDraft._id],
      );
      // the draft changed with: 2 replies, 2 cheers on it, 1 cheer on a reply, 1 edit
      assert.equal(draftRecord?.__v, 6);
      assert.equal(draftRecord?.discussions[1]?.__v, 1, 'the fixed reply changed once: its cheer');
      // nothing of the deleted comment is left in storage
      const leftovers = await t.services.db.selectFrom('cheers').select('id').where('comment_id', '=', answer._id).execute();
      assert.deepEqual(leftovers, []);
      assert.deepEqual(await t.services.db.selectFrom('discussions').select('id').where('comment_id', '=', answer._id).execute(), []);
    });
  });
}
