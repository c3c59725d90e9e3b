/**
 * POST /api/v1/imports/trello and /imports/taskboard, GET /api/v1/imports/:importId: a Trello
 * export becomes a board as a Trello user expects (order, archived things, labels, people matched,
 * comments kept with their authors or attributed), a malformed file is a 400 before anything is
 * written, a failed or interrupted import leaves nothing behind, and what it created is recorded as
 * events of one request that webhooks receive.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { sweepDeleted } from '../../src/domain/boards/sweep.ts';
import { IMPORT_BATCH_CARDS, importFaults } from '../../src/domain/imports/service.ts';
import { BoardExport } from '../../src/schemas/board-export.ts';
import { runTaskboard } from '../support/cli.ts';
import { addMember, addTeam } from '../support/fixtures.ts';
import { apiClient, bearer, buildTestApp, ENGINES, type OtherCompany, otherCompany, type TestApp } from '../support/harness.ts';
import { TEST_PASSWORD } from '../support/people.ts';
import { eventually, type Receiver, startReceiver } from '../support/receiver.ts';
import { assertSchema } from '../support/schema.ts';
import { bigTrelloExport, importForm, smallTrelloExport } from '../support/trello.ts';

type Json = Record<string, any>;

/** Posts the file to the import, with a people mapping (JSON, or any text to see it refused) when given. */
async function postImport(
  t: TestApp,
  key: string,
  source: 'trello' | 'taskboard',
  teamId: string,
  content: string | Buffer,
  requestId?: string,
  people?: object | string,
) {
  const form = importForm(content, undefined, people === undefined ? {} : { people: typeof people === 'string' ? people : JSON.stringify(people) });
  return t.app.inject({
    method: 'POST',
    url: `/api/v1/imports/${source}?teamId=${teamId}`,
    headers: { ...bearer(key), ...form.headers, ...(requestId ? { 'x-request-id': requestId } : {}) },
    payload: form.payload,
  });
}

async function readImport(t: TestApp, key: string, id: string) {
  const res = await t.app.inject({ method: 'GET', url: `/api/v1/imports/${id}`, headers: bearer(key) });
  return res;
}

/** Imports the file and waits until the import has ended; answers the import as Get Import reads it. */
async function importAndWait(
  t: TestApp,
  key: string,
  source: 'trello' | 'taskboard',
  teamId: string,
  content: string | Buffer,
  requestId?: string,
): Promise<Json> {
  const res = await postImport(t, key, source, teamId, content, requestId);
  assert.equal(res.statusCode, 202, res.body);
  const started = res.json().import;
  return eventually(
    async () => (await readImport(t, key, started._id)).json().import as Json,
    (record) => record.status !== 'running',
    60_000,
    'the import to end',
  );
}

async function exportOf(t: TestApp, key: string, boardId: string): Promise<Json> {
  const res = await t.app.inject({ method: 'GET', url: `/api/v1/boards/${boardId}/export`, headers: bearer(key) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** How many rows the import tables hold: what a refused or failed import must leave as it was. */
async function counts(t: TestApp) {
  const db = t.services.db;
  const count = async (table: 'boards' | 'lists' | 'labels' | 'cards' | 'checklists' | 'checklist_items' | 'comments' | 'attachments' | 'events' | 'imports') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    boards: await count('boards'),
    lists: await count('lists'),
    labels: await count('labels'),
    cards: await count('cards'),
    checklists: await count('checklists'),
    items: await count('checklist_items'),
    comments: await count('comments'),
    attachments: await count('attachments'),
  };
}

for (const engine of ENGINES) {
  describe(`imports [${engine}]`, () => {
    let t: TestApp;
    let key: string;
    let teamId: string;
    let alice: { userId: string; apiKey: string };
    let bob: { userId: string; apiKey: string };
    let other: OtherCompany;
    before(async () => {
      t = await buildTestApp(engine);
      key = t.tenant.apiKey;
      teamId = t.tenant.teamId;
      alice = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [teamId], email: 'alice@acme.test', fullName: 'Alice Author' });
      bob = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [teamId], email: 'bob@acme.test', fullName: 'Bob Builder' });
      other = await otherCompany(t);
    });
    after(() => t.dispose());
    let releaseHeld: (() => void) | undefined;
    afterEach(() => {
      importFaults.beforeBatch = undefined;
      releaseHeld?.();
      releaseHeld = undefined;
    });

    it('brings a Trello board over: lists and cards in order, archived ones, labels, people, checklists, comments, links', async () => {
      const done = await importAndWait(t, key, 'trello', teamId, JSON.stringify(smallTrelloExport()));
      assert.equal(done.status, 'done', JSON.stringify(done));
      assert.ok(done.board);
      assert.deepEqual(done.progress, { cards: 4, cardsDone: 4 });
      const doc = await exportOf(t, key, done.board);
      assertSchema(BoardExport, doc);
      assert.equal(doc.board.name, 'Launch 🚀 — планы');
      assert.equal(doc.board.description, 'Everything for the launch. Ünïcode, עברית and 日本語 welcome.');
      assert.deepEqual(
        doc.lists.map((l: Json) => [l.name, l.archived]),
        [
          ['To do', false],
          ['Doing', false],
          ['Old ideas', true],
        ],
      );
      const palette = new Map(doc.labels.map((l: Json) => [l._id, `${l.name}/${l.color}`]));
      assert.deepEqual([...palette.values()], ['Ready/green', 'Blocked/red', 'green dark/green', 'no colour/black', 'Nice to have/sky']);
      const [toDo, doing, old] = doc.lists.map((l: Json) => l._id);
      assert.deepEqual(
        doc.cards.map((c: Json) => [c.name, c.list, c.archived]),
        [
          ['Write the press release ✍️', toDo, false],
          ['Second card', toDo, false],
          ['Archived card', doing, true],
          ['An idea we dropped', old, false],
        ],
      );
      const press = doc.cards[0];
      assert.equal(press.description, 'Draft in **Markdown**.\nSecond line.');
      assert.equal(press.start, '2026-03-01T09:00:00.000Z');
      assert.equal(press.due, '2026-03-10T17:00:00.000Z');
      assert.equal(press.complete, true);
      assert.deepEqual(
        press.labels.map((id: string) => palette.get(id)),
        ['Ready/green', 'green dark/green'],
      );
      // Alice by her full name, Bob by his username (the local part of his email); Zoë is no member
      assert.deepEqual(new Set(press.members), new Set([alice.userId, bob.userId]));
      assert.deepEqual(
        press.checklists.map((c: Json) => [c.name, c.items.map((i: Json) => [i.name, i.complete, i.due, i.members])]),
        [
          [
            'Steps',
            [
              ['First draft', true, null, []],
              ['Send to legal', false, '2026-03-05T12:00:00.000Z', [bob.userId]],
            ],
          ],
        ],
      );
      assert.equal(press.comments.length, 2);
      assert.deepEqual(press.comments[0], { ...press.comments[0], author: alice.userId, content: 'First draft is up.', createdAt: '2026-03-02T08:00:00.000Z' });
      assert.equal(press.comments[1].author, t.tenant.userId);
      assert.equal(press.comments[1].createdAt, '2026-03-03T08:00:00.000Z');
      assert.match(press.comments[1].content, /^\*Written by Zoë Unknown \(@zoe\) on Trello, 2026-03-03\.\*\n\nLooks good to me 👍$/);
      assert.deepEqual(
        press.attachments.map((a: Json) => [a.type, a.name, a.url, a.creator]),
        [
          ['link', 'draft.pdf', 'https://trello.com/1/cards/65a0c0ffee00000000000f01/attachments/65a0c0ffee00000000001101/download/draft.pdf', alice.userId],
          ['link', 'Brand guide', 'https://example.test/brand', t.tenant.userId],
        ],
      );
      // a card with none of the optional fields
      assert.deepEqual([doc.cards[3].description, doc.cards[3].due, doc.cards[3].labels, doc.cards[3].members], ['', null, [], []]);

      const report = done.report;
      assert.deepEqual(report.brought, {
        lists: 3,
        labels: 5,
        cards: 4,
        checklists: 1,
        checklistItems: 2,
        comments: 2,
        discussions: 0,
        attachments: 2,
        cheers: 0,
        customFields: 5,
        customFieldValues: 5,
        relations: 0,
      });
      assert.deepEqual(
        report.members.matched.map((m: Json) => [m.name, m.user, m.by]),
        [
          ['Alice Author', alice.userId, 'name'],
          ['Robert B.', bob.userId, 'username'],
        ],
      );
      assert.deepEqual(report.members.unmatched, [
        { key: '65a0c0ffee00000000000e03', name: 'Zoë Unknown', username: 'zoe', cardMemberships: 1, itemMemberships: 0, comments: 1 },
      ]);
      // Trello's custom fields are the board's, with their values; a value that reads as none is counted
      assert.equal(report.leftOut.customFields, undefined);
      assert.equal(report.leftOut.customFieldValues, 1);
      assert.deepEqual(
        doc.customFields.map((f: Json) => [f.name, f.type, f.showOnCard, f.options.map((o: Json) => `${o.name}/${o.color}`)]),
        [
          ['Estimate', 'number', false, []],
          ['Team', 'select', true, ['Marketing/purple', 'Legal/black']],
          ['Notes', 'text', false, []],
          ['Launch day', 'date', false, []],
          ['Signed off', 'checkbox', false, []],
        ],
      );
      const fieldIds = new Map(doc.customFields.map((f: Json) => [f._id, f.name]));
      const marketing = doc.customFields[1].options[0]._id;
      assert.deepEqual(
        new Map(press.fields.map((v: Json) => [fieldIds.get(v.field), v.value])),
        new Map<string, unknown>([
          ['Estimate', 3],
          ['Team', marketing],
          ['Notes', 'Ask Zoë first'],
          ['Launch day', '2026-03-12T09:00:00.000Z'],
          ['Signed off', true],
        ]),
      );
      assert.deepEqual(doc.cards[1].fields, []);
      assert.deepEqual(doc.relations, []);
      assert.equal(report.leftOut.powerUps, 1);
      assert.equal(report.leftOut.votes, 2);
      assert.equal(report.leftOut.stickers, 1);
      assert.equal(report.leftOut.cardCovers, 1);
      assert.equal(report.leftOut.unmatchedCardMembers, 1);
      assert.ok(report.notes.some((note: string) => /links/.test(note)));
    });

    it('shows the people before the import, follows the chosen mapping, and maps the rest after it', async () => {
      const person = (n: number) => `77a0c0ffee0000000000000${n}`;
      const file = JSON.stringify({
        name: 'People board',
        lists: [{ id: 'l1', name: 'To do', pos: 1 }],
        members: [
          { id: person(1), fullName: 'A. Somebody', username: 'someone', email: 'ALICE@acme.test' },
          { id: person(2), fullName: 'Carol Nobody', username: 'carol' },
          { id: person(3), fullName: 'Dan Elsewhere', username: 'dan' },
        ],
        cards: [
          { id: 'c1', idList: 'l1', name: 'One', pos: 1, idMembers: [person(1), person(2), person(3)] },
          { id: 'c2', idList: 'l1', name: 'Two', pos: 2, idMembers: [person(2)] },
        ],
        checklists: [{ id: 'k1', idCard: 'c1', name: 'Steps', checkItems: [{ id: 'i1', name: 'Step', state: 'incomplete', idMember: person(2) }] }],
        actions: [
          { id: 'a1', type: 'commentCard', idMemberCreator: person(3), date: '2026-02-01T10:00:00.000Z', data: { text: 'Hello', card: { id: 'c1' } } },
          { id: 'a2', type: 'commentCard', idMemberCreator: person(2), date: '2026-02-02T10:00:00.000Z', data: { text: 'Hi', card: { id: 'c1' } } },
        ],
      });
      // before: each person with the member the rules suggest (Alice by her email), and whom to choose from
      const form = importForm(file);
      const preview = await t.app.inject({
        method: 'POST',
        url: `/api/v1/imports/trello/people?teamId=${teamId}`,
        headers: { ...bearer(key), ...form.headers },
        payload: form.payload,
      });
      assert.equal(preview.statusCode, 200, preview.body);
      const { people, members } = preview.json().importPeople;
      assert.deepEqual(
        people.map((p: Json) => [p.name, p.user, p.by, p.cardMemberships, p.itemMemberships, p.comments]),
        [
          ['A. Somebody', alice.userId, 'email', 1, 0, 0],
          ['Carol Nobody', null, null, 2, 1, 1],
          ['Dan Elsewhere', null, null, 1, 0, 1],
        ],
      );
      assert.deepEqual(new Set(members.map((m: Json) => m._id)), new Set([t.tenant.userId, alice.userId, bob.userId]));

      // a mapping that names a user outside the team, or no person of the file: a 400, nothing written
      const before = await counts(t);
      for (const [mapping, field] of [
        [{ [person(3)]: other.userId }, `body.people.${person(3)}`],
        [{ nobody: bob.userId }, 'body.people.nobody'],
        ['not json', 'body.people'],
      ] as const) {
        const res = await postImport(t, key, 'trello', teamId, file, undefined, mapping);
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json().details[0].field, field, res.body);
      }
      assert.deepEqual(await counts(t), before);

      // the import: Dan is Bob, Alice's suggestion is turned down (nobody), Carol is left to the rules (none)
      const started = await postImport(t, key, 'trello', teamId, file, undefined, { [person(3)]: bob.userId, [person(1)]: null });
      assert.equal(started.statusCode, 202, started.body);
      const done = await eventually(
        async () => (await readImport(t, key, started.json().import._id)).json().import as Json,
        (record) => record.status !== 'running',
        30_000,
        'the import to end',
      );
      assert.equal(done.status, 'done', JSON.stringify(done));
      assert.deepEqual(
        done.report.members.matched.map((m: Json) => [m.name, m.user, m.by]),
        [['Dan Elsewhere', bob.userId, 'chosen']],
      );
      assert.deepEqual(
        done.report.members.unmatched.map((m: Json) => [m.name, m.cardMemberships, m.itemMemberships]),
        [
          ['A. Somebody', 1, 0],
          ['Carol Nobody', 2, 1],
        ],
      );
      let doc = await exportOf(t, key, done.board);
      assert.deepEqual(
        doc.cards.map((c: Json) => c.members),
        [[bob.userId], []],
      );
      assert.deepEqual(
        doc.cards[0].comments.map((c: Json) => [c.author, c.content]),
        [
          [bob.userId, 'Hello'],
          [t.tenant.userId, '*Written by Carol Nobody (@carol) on Trello, 2026-02-02.*\n\nHi'],
        ],
      );

      // after: who is still unmapped, and where
      const api = apiClient(t, key);
      const waiting = await api('GET', `/api/v1/imports/${done._id}/people`);
      assert.equal(waiting.statusCode, 200, waiting.body);
      assert.deepEqual(
        waiting.json().importPeople.people.map((p: Json) => [p.key, p.cardMemberships, p.itemMemberships, p.comments]),
        [
          [person(1), 1, 0, 0],
          [person(2), 2, 1, 1],
        ],
      );
      assert.equal((await other.api('GET', `/api/v1/imports/${done._id}/people`)).statusCode, 404);
      // Carol is mapped to Alice; she lands on both cards and the item, one change of each card
      const wrong = await api('POST', `/api/v1/imports/${done._id}/people`, { people: [{ key: person(3), user: alice.userId }] });
      assert.equal(wrong.statusCode, 400, wrong.body);
      const outsider = await api('POST', `/api/v1/imports/${done._id}/people`, { people: [{ key: person(2), user: other.userId }] });
      assert.equal(outsider.statusCode, 400, outsider.body);
      assert.equal((await other.api('POST', `/api/v1/imports/${done._id}/people`, { people: [{ key: person(2), user: other.userId }] })).statusCode, 404);
      const mapped = await api('POST', `/api/v1/imports/${done._id}/people`, { people: [{ key: person(2), user: alice.userId }] });
      assert.equal(mapped.statusCode, 200, mapped.body);
      const record = mapped.json().import;
      assert.deepEqual(
        record.report.members.matched.map((m: Json) => [m.name, m.user, m.by]),
        [
          ['Dan Elsewhere', bob.userId, 'chosen'],
          ['Carol Nobody', alice.userId, 'chosen'],
        ],
      );
      assert.deepEqual(
        record.report.members.unmatched.map((m: Json) => m.name),
        ['A. Somebody'],
      );
      doc = await exportOf(t, key, done.board);
      assert.deepEqual(
        doc.cards.map((c: Json) => new Set(c.members)),
        [new Set([bob.userId, alice.userId]), new Set([alice.userId])],
      );
      assert.deepEqual(doc.cards[0].checklists[0].items[0].members, [alice.userId]);
      const events = await t.services.db
        .selectFrom('events')
        .select(['type', 'card_id'])
        .where('board_id', '=', done.board)
        .where('type', '=', 'card.members.toggled')
        .execute();
      assert.deepEqual(new Set(events.map((e) => e.card_id)), new Set(doc.cards.map((c: Json) => c._id)));
      assert.equal(events.length, 2);
      // mapped once: a second mapping of Carol is a 400
      assert.equal((await api('POST', `/api/v1/imports/${done._id}/people`, { people: [{ key: person(2), user: bob.userId }] })).statusCode, 400);
    });

    it('invites a person by email: accepting puts the new member on their cards, revoking leaves them unmapped', async () => {
      const person = (n: number) => `88b0c0ffee0000000000000${n}`;
      const file = JSON.stringify({
        name: 'Invite board',
        lists: [{ id: 'l1', name: 'To do', pos: 1 }],
        members: [
          { id: person(1), fullName: 'Erin Outside', username: 'erin', email: 'erin@elsewhere.test' },
          { id: person(2), fullName: 'Fay Later', username: 'fay' },
        ],
        cards: [
          { id: 'c1', idList: 'l1', name: 'One', pos: 1, idMembers: [person(1), person(2)] },
          { id: 'c2', idList: 'l1', name: 'Two', pos: 2, idMembers: [person(1)] },
        ],
        checklists: [{ id: 'k1', idCard: 'c2', name: 'Steps', checkItems: [{ id: 'i1', name: 'Step', state: 'incomplete', idMember: person(1) }] }],
      });
      const post = (people: object) => postImport(t, key, 'trello', teamId, file, undefined, people);
      // a bad email is a 400 naming the person, and nothing is written (no import, no invitation)
      const before = await counts(t);
      const invitationsBefore = await t.services.db.selectFrom('invitations').select('id').execute();
      const bad = await post({ [person(1)]: { invite: 'not an email' } });
      assert.equal(bad.statusCode, 400, bad.body);
      assert.equal(bad.json().details[0].field, `body.people.${person(1)}`, bad.body);
      assert.deepEqual(await counts(t), before);
      assert.equal((await t.services.db.selectFrom('invitations').select('id').execute()).length, invitationsBefore.length);

      // inviting is for owners and admins, as any invitation: a member's import is a 403, nothing written
      const refused = await postImport(t, alice.apiKey, 'trello', teamId, file, undefined, { [person(1)]: { invite: 'erin@elsewhere.test' } });
      assert.equal(refused.statusCode, 403, refused.body);
      assert.deepEqual(await counts(t), before);
      assert.equal((await t.services.db.selectFrom('imports').select('id').where('board_name', '=', 'Invite board').execute()).length, 0);

      const started = await post({ [person(1)]: { invite: 'Erin@Elsewhere.test' } });
      assert.equal(started.statusCode, 202, started.body);
      const made = started.json().import.invitations;
      assert.deepEqual(
        made.map((i: Json) => [i.key, i.email, i.mailed]),
        [[person(1), 'erin@elsewhere.test', false]],
      );
      const done = await eventually(
        async () => (await readImport(t, key, started.json().import._id)).json().import as Json,
        (record) => record.status !== 'running',
        30_000,
        'the import to end',
      );
      assert.equal(done.status, 'done', JSON.stringify(done));
      assert.deepEqual(
        done.report.members.unmatched.map((m: Json) => [m.name, m.invited ?? null]),
        [
          ['Erin Outside', 'erin@elsewhere.test'],
          ['Fay Later', null],
        ],
      );
      assert.equal(done.invitations, undefined);
      const api = apiClient(t, key);
      const waiting = await api('GET', `/api/v1/imports/${done._id}/people`);
      assert.deepEqual(
        waiting.json().importPeople.people.map((p: Json) => [p.key, p.invited]),
        [
          [person(1), 'erin@elsewhere.test'],
          [person(2), null],
        ],
      );
      const stored = await t.services.db.selectFrom('invitations').selectAll().where('id', '=', made[0].invitation).executeTakeFirstOrThrow();
      assert.equal(stored.role, 'member');
      assert.deepEqual(JSON.parse(stored.team_ids), [teamId]);

      // Erin accepts: she joins and is on both cards and the item, one change of each card, as Map Import People records it
      const token = /#(tbi_[A-Za-z0-9_-]{43})$/.exec(made[0].url)![1]!;
      const accepted = await t.app.inject({
        method: 'POST',
        url: `/api/v1/invitations/${token}/accept`,
        payload: { fullName: 'Erin Here', password: TEST_PASSWORD },
      });
      assert.equal(accepted.statusCode, 200, accepted.body);
      const erin = accepted.json().user._id as string;
      const after = (await readImport(t, key, done._id)).json().import;
      assert.deepEqual(
        after.report.members.matched.map((m: Json) => [m.name, m.user, m.by]),
        [['Erin Outside', erin, 'invitation']],
      );
      assert.deepEqual(
        after.report.members.unmatched.map((m: Json) => m.name),
        ['Fay Later'],
      );
      const doc = await exportOf(t, key, done.board);
      assert.deepEqual(
        doc.cards.map((c: Json) => c.members),
        [[erin], [erin]],
      );
      assert.deepEqual(doc.cards[1].checklists[0].items[0].members, [erin]);
      const events = await t.services.db
        .selectFrom('events')
        .select(['type', 'card_id'])
        .where('board_id', '=', done.board)
        .where('type', '=', 'card.members.toggled')
        .execute();
      assert.deepEqual(new Set(events.map((e) => e.card_id)), new Set(doc.cards.map((c: Json) => c._id)));

      // Fay is invited after the import; her invitation is revoked: she stays unmapped, and mappable
      const badLater = await api('POST', `/api/v1/imports/${done._id}/people`, { people: [{ key: person(2), invite: 'fay at nowhere' }] });
      assert.equal(badLater.statusCode, 400, badLater.body);
      assert.equal(badLater.json().details[0].field, 'body.people[0].invite');
      const later = await api('POST', `/api/v1/imports/${done._id}/people`, { people: [{ key: person(2), invite: 'fay@elsewhere.test' }] });
      assert.equal(later.statusCode, 200, later.body);
      const fayInvitation = later.json().import.invitations[0];
      assert.match(fayInvitation.url, /\/invitations#tbi_/);
      assert.deepEqual(
        later.json().import.report.members.unmatched.map((m: Json) => [m.name, m.invited]),
        [['Fay Later', 'fay@elsewhere.test']],
      );
      const revoked = await api('DELETE', `/api/v1/companies/${t.tenant.companyId}/invitations/${fayInvitation.invitation}`);
      assert.equal(revoked.statusCode, 200, revoked.body);
      const unmapped = (await api('GET', `/api/v1/imports/${done._id}/people`)).json().importPeople.people;
      assert.deepEqual(
        unmapped.map((p: Json) => [p.key, p.invited, p.cardMemberships]),
        [[person(2), null, 1]],
      );
      const mapped = await api('POST', `/api/v1/imports/${done._id}/people`, { people: [{ key: person(2), user: bob.userId }] });
      assert.equal(mapped.statusCode, 200, mapped.body);
      assert.deepEqual((await exportOf(t, key, done.board)).cards[0].members.sort(), [erin, bob.userId].sort());
    });

    it('imports an empty board', async () => {
      const done = await importAndWait(t, key, 'trello', teamId, JSON.stringify({ name: 'Empty', lists: [], cards: [] }));
      assert.equal(done.status, 'done');
      const doc = await exportOf(t, key, done.board);
      assert.deepEqual([doc.board.name, doc.lists, doc.cards, doc.labels], ['Empty', [], [], []]);
    });

    it('refuses a malformed file with a 400 naming what is wrong, and writes nothing', async () => {
      const before = await counts(t);
      const cases: [string, RegExp][] = [
        ['{"name": "Half', /not JSON/],
        ['[1, 2]', /JSON object/],
        [JSON.stringify({ name: 'No lists', cards: [] }), /file\.lists/],
        [JSON.stringify({ name: '', lists: [], cards: [] }), /file\.name/],
        [JSON.stringify({ name: 'Bad card', lists: [{ id: 'l1', name: 'L' }], cards: [{ id: 'c1', name: 'C', idList: 'nope' }] }), /file\.cards\[0\]\.idList/],
        [
          JSON.stringify({ name: 'Bad due', lists: [{ id: 'l1', name: 'L' }], cards: [{ id: 'c1', name: 'C', idList: 'l1', due: 'next week' }] }),
          /file\.cards\[0\]\.due/,
        ],
      ];
      for (const [content, message] of cases) {
        const res = await postImport(t, key, 'trello', teamId, content);
        assert.equal(res.statusCode, 400, content);
        assert.equal(res.json().code, 'validation_failed');
        assert.match(res.json().message, message);
        assert.ok(res.json().details.length > 0);
      }
      const json = await t.app.inject({ method: 'POST', url: `/api/v1/imports/trello?teamId=${teamId}`, headers: bearer(key), payload: { name: 'x' } });
      assert.equal(json.statusCode, 415);
      const taskboard = await postImport(t, key, 'taskboard', teamId, JSON.stringify({ ...smallTrelloExport() }));
      assert.equal(taskboard.statusCode, 400);
      assert.match(taskboard.json().message, /file\.format/);
      assert.deepEqual(await counts(t), before);
      assert.equal(
        Number(
          (
            await t.services.db
              .selectFrom('imports')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        ) >= 0,
        true,
      );
    });

    it("is a 404 for another company's team, and another company cannot read the import", async () => {
      const res = await postImport(t, key, 'trello', other.teamId, JSON.stringify(smallTrelloExport()));
      assert.equal(res.statusCode, 404);
      const done = await importAndWait(t, key, 'trello', teamId, JSON.stringify({ name: 'Mine', lists: [], cards: [] }));
      assert.equal((await readImport(t, other.apiKey, done._id)).statusCode, 404);
      assert.equal((await readImport(t, key, done._id)).statusCode, 200);
    });

    it('leaves nothing behind when it fails between batches, and says why', async () => {
      const before = await counts(t);
      importFaults.beforeBatch = (batch) => {
        if (batch === 1) throw new Error('injected fault');
      };
      const done = await importAndWait(t, key, 'trello', teamId, JSON.stringify(bigTrelloExport(IMPORT_BATCH_CARDS + 50)), 'req-import-failing');
      assert.equal(done.status, 'failed');
      assert.equal(done.board, null);
      assert.match(done.error, /could not write the board/);
      assert.deepEqual(await counts(t), before);
      const events = await t.services.db.selectFrom('events').select('type').where('request_id', '=', 'req-import-failing').execute();
      assert.deepEqual(events, []);
    });

    it('hides a board whose import was interrupted, reads it as failed once its lease ran out, and the sweeper removes it', async () => {
      const before = await counts(t);
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let reached!: () => void;
      const atBatch = new Promise<void>((resolve) => {
        reached = resolve;
      });
      importFaults.beforeBatch = async (batch) => {
        if (batch !== 1) return;
        reached();
        await held;
      };
      const res = await postImport(t, key, 'trello', teamId, JSON.stringify(bigTrelloExport(IMPORT_BATCH_CARDS + 10)));
      assert.equal(res.statusCode, 202);
      const started = res.json().import;
      // a failed assertion must not leave the import waiting forever (the app's close waits for it)
      releaseHeld = release;
      await atBatch;
      // half written and hidden: no read shows it
      const row = await t.services.db.selectFrom('imports').selectAll().where('id', '=', started._id).executeTakeFirstOrThrow();
      assert.equal((await t.app.inject({ method: 'GET', url: `/api/v1/boards/${row.board_id}`, headers: bearer(key) })).statusCode, 404);
      const boards = await t.app.inject({ method: 'GET', url: `/api/v1/boards?teamId=${teamId}`, headers: bearer(key) });
      assert.ok(!boards.json().boards.some((b: Json) => b._id === row.board_id));
      // the sweeper leaves it alone while the lease holds
      await sweepDeleted(t.services);
      assert.equal(
        Number(
          (
            await t.services.db
              .selectFrom('cards')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('board_id', '=', row.board_id)
              .executeTakeFirstOrThrow()
          ).n,
        ),
        IMPORT_BATCH_CARDS,
      );
      // the process "dies": its lease runs out
      await t.services.db.updateTable('imports').set({ lease_until: '2000-01-01T00:00:00.000Z' }).where('id', '=', started._id).execute();
      const read = (await readImport(t, key, started._id)).json().import;
      assert.equal(read.status, 'failed');
      assert.match(read.error, /interrupted/);
      await sweepDeleted(t.services);
      assert.deepEqual(await counts(t), before);
      // had it lived on, it cannot publish a board the sweeper took
      release();
      const ended = await eventually(
        async () => t.services.db.selectFrom('imports').select('status').where('id', '=', started._id).executeTakeFirstOrThrow(),
        (r) => r.status === 'failed',
      );
      assert.equal(ended.status, 'failed');
      assert.deepEqual(await counts(t), before);
    });

    it('records the events of what it created under the request id, and webhooks receive them', async () => {
      let receiver: Receiver | undefined;
      try {
        receiver = await startReceiver();
        const hook = await t.app.inject({
          method: 'POST',
          url: `/api/v1/webhooks?companyId=${t.tenant.companyId}`,
          headers: bearer(key),
          payload: { url: receiver.url, types: ['board.imported', 'card.created'] },
        });
        assert.equal(hook.statusCode, 201, hook.body);
        const done = await importAndWait(t, key, 'trello', teamId, JSON.stringify(smallTrelloExport()), 'req-import-events');
        assert.equal(done.status, 'done');
        const events = await t.services.db
          .selectFrom('events')
          .select(['type', 'board_id', 'card_id'])
          .where('request_id', '=', 'req-import-events')
          .orderBy('seq')
          .execute();
        const types = events.map((e) => e.type);
        assert.equal(types.filter((type) => type === 'board.created').length, 1);
        assert.equal(types.filter((type) => type === 'list.created').length, 3);
        assert.equal(types.filter((type) => type === 'label.created').length, 5);
        assert.equal(types.filter((type) => type === 'card.created').length, 4);
        assert.equal(types.at(-1), 'board.imported');
        assert.ok(events.every((e) => e.board_id === done.board));
        await receiver.until((received) => received.filter((r) => r.body.includes(done.board)).length >= 5, 20_000, 'the import to be delivered');
        const bodies = receiver.received.map((r) => JSON.parse(r.body) as Json).filter((b) => b.data.board === done.board);
        assert.deepEqual(bodies.map((b) => b.type).sort(), ['board.imported', 'card.created', 'card.created', 'card.created', 'card.created']);
        // the search index sees the imported cards
        const found = await t.app.inject({
          method: 'GET',
          url: `/api/v1/search?q=${encodeURIComponent('press release')}&teamId=${teamId}`,
          headers: bearer(key),
        });
        assert.equal(found.statusCode, 200, found.body);
        assert.ok(found.body.includes('Write the press release'));
      } finally {
        await receiver?.close();
      }
    });

    it('imports a board of 5,000 cards, every card in order with its parts', async () => {
      const total = 5000;
      const done = await importAndWait(t, key, 'trello', teamId, JSON.stringify(bigTrelloExport(total)));
      assert.equal(done.status, 'done', JSON.stringify(done.error));
      assert.deepEqual(done.progress, { cards: total, cardsDone: total });
      const db = t.services.db;
      const cards = await db
        .selectFrom('cards')
        .select(['name', 'list_id'])
        .where('board_id', '=', done.board)
        .where('deleted_at', 'is', null)
        .orderBy('list_id')
        .orderBy('position')
        .execute();
      assert.equal(cards.length, total);
      const lists = await db.selectFrom('lists').select('id').where('board_id', '=', done.board).orderBy('position').execute();
      const first = cards.filter((c) => c.list_id === lists[0]?.id).map((c) => c.name);
      assert.deepEqual(first.slice(0, 3), ['Card 1 — ünïcode', 'Card 5 — ünïcode', 'Card 9 — ünïcode']);
      const count = async (table: 'checklist_items' | 'comments' | 'card_labels') =>
        Number(
          (
            await db
              .selectFrom(table)
              .innerJoin('cards', 'cards.id', `${table}.card_id` as 'comments.card_id')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('cards.board_id', '=', done.board)
              .executeTakeFirstOrThrow()
          ).n,
        );
      assert.equal(await count('checklist_items'), total * 2);
      assert.equal(await count('comments'), 1000);
      assert.equal(await count('card_labels'), total);
      assert.ok(done.report.notes.some((note: string) => /1,000 actions/.test(note)));
    });

    it('imports from the command line as the company owner, printing what came and what did not', async () => {
      const folder = mkdtempSync(join(tmpdir(), 'taskboard-import-'));
      try {
        const file = join(folder, 'board.json');
        writeFileSync(file, JSON.stringify({ ...smallTrelloExport(), name: 'From the CLI' }));
        const env = { DATABASE_URL: t.url, UPLOAD_DIR: t.config.uploadDir };
        const run = await runTaskboard(['import', 'trello', file, '--team', teamId, '--json'], env);
        assert.equal(run.code, 0, run.stderr);
        const done = JSON.parse(run.stdout);
        assert.equal(done.status, 'done');
        const doc = await exportOf(t, key, done.board);
        assert.equal(doc.board.name, 'From the CLI');
        assert.equal(doc.cards.length, 4);
        assert.equal(doc.cards[0].creator, t.tenant.userId);
        const events = await t.services.db.selectFrom('events').select(['request_id', 'actor_user_id']).where('board_id', '=', done.board).execute();
        assert.equal(new Set(events.map((e) => e.request_id)).size, 1);
        assert.match(String(events[0]?.request_id), /^cli-import-/);
        const text = await runTaskboard(['import', 'trello', file, '--team', teamId, '--as', 'alice@acme.test'], env);
        assert.equal(text.code, 0, text.stderr);
        assert.match(text.stdout, /^Imported "From the CLI" as board [0-9a-f]{24}/);
        assert.match(text.stdout, /not matched: Zoë Unknown/);
        assert.match(text.stdout, /5 custom fields \(5 values\)/);
        assert.match(text.stdout, /customFieldValues 1/);
        writeFileSync(file, '{"name": "broken"');
        const broken = await runTaskboard(['import', 'trello', file, '--team', teamId], env);
        assert.equal(broken.code, 2);
        assert.match(broken.stderr, /not JSON/);
        const usage = await runTaskboard(['import', 'trello', '--team', teamId], env);
        assert.equal(usage.code, 2);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    });

    it('takes a Taskboard export back into another team: exported again, the same document up to ids and timestamps', async () => {
      const source = await importAndWait(t, key, 'trello', teamId, JSON.stringify(smallTrelloExport()));
      const original = await exportOf(t, key, source.board);
      // a cheer and a reply, which a Trello import has none of
      const card = original.cards[0];
      const api = apiClient(t, alice.apiKey);
      const reply = await api('POST', `/api/v1/comments/${card.comments[0]._id}/discussions`, { content: 'Reply ✓' });
      assert.ok([200, 201].includes(reply.statusCode), reply.body);
      const cheer = await apiClient(t, bob.apiKey)('POST', `/api/v1/cards/${card._id}/cheers`, { content: '🎉' });
      assert.ok([200, 201].includes(cheer.statusCode), cheer.body);
      // custom fields of every type with values, and relations between the board's cards
      const colours = (await api('GET', '/api/v1/label-colors')).json().colors as Json[];
      const made: Json[] = [];
      for (const field of [
        { name: 'Owner', type: 'person' },
        {
          name: 'Areas',
          type: 'multiselect',
          options: [
            { name: 'Web', color: colours[0]?._id },
            { name: 'Mobile', color: colours[1]?._id },
          ],
        },
        { name: 'Spec', type: 'url' },
        { name: 'Effort', type: 'number', unit: 'h', showOnCard: true },
      ]) {
        const res = await api('POST', `/api/v1/boards/${source.board}/custom-fields`, field);
        assert.equal(res.statusCode, 201, res.body);
        made.push(res.json().customField);
      }
      const [owner, areas, spec, effort] = made as [Json, Json, Json, Json];
      const set = await api('PATCH', `/api/v1/cards/${original.cards[1]._id}/custom-fields`, {
        values: [
          { field: owner._id, value: bob.userId },
          { field: areas._id, value: areas.options.map((o: Json) => o._id) },
          { field: spec._id, value: 'https://example.test/spec' },
          { field: effort._id, value: 2.5 },
        ],
      });
      assert.equal(set.statusCode, 200, set.body);
      for (const [from, kind, to] of [
        [0, 'blocks', 1],
        [1, 'relates', 3],
        [3, 'duplicated_by', 2],
      ] as const) {
        const res = await api('POST', `/api/v1/cards/${original.cards[from]._id}/relations`, { kind, card: original.cards[to]._id });
        assert.equal(res.statusCode, 201, res.body);
      }
      const before = await exportOf(t, key, source.board);
      assertSchema(BoardExport, before);
      assert.equal(before.customFields.length, 9);
      assert.equal(before.relations.length, 3);
      assert.equal(before.cards[1].fields.length, 4);
      assert.ok(before.people.some((p: Json) => p._id === bob.userId));
      const elsewhere = await addTeam(t.services, t.tenant.companyId, 'Elsewhere', [t.tenant.userId, alice.userId, bob.userId]);
      const done = await importAndWait(t, key, 'taskboard', elsewhere, JSON.stringify(before));
      assert.equal(done.status, 'done', JSON.stringify(done));
      assert.deepEqual(done.report.members.unmatched, []);
      assert.equal(done.report.brought.customFields, 9);
      assert.equal(done.report.brought.relations, 3);
      const after = await exportOf(t, key, done.board);
      assert.deepEqual(normalised(after), normalised(before));
      // the imported relations read as the API shows them, on the new board's cards
      const related = await api('GET', `/api/v1/cards/${after.cards[1]._id}/relations`);
      assert.equal(related.statusCode, 200, related.body);
      assert.deepEqual(
        related
          .json()
          .relations.map((r: Json) => [r.kind, r.card.name])
          .sort(),
        [
          ['blocked_by', after.cards[0].name],
          ['relates', after.cards[3].name],
        ].sort(),
      );
    });
  });
}

/** The document with its ids replaced by their order of first appearance and its timestamps dropped. */
function normalised(doc: Json): unknown {
  const ids = new Map<string, string>();
  const walk = (value: unknown, key?: string): unknown => {
    if (Array.isArray(value)) return value.map((item) => walk(item));
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value as Json)
          .filter(([k]) => !['createdAt', 'updatedAt', 'exportedAt'].includes(k))
          .map(([k, v]) => [k, walk(v, k)]),
      );
    }
    if (typeof value === 'string' && /^[0-9a-f]{24}$/.test(value) && key !== 'color') {
      if (!ids.has(value)) ids.set(value, `id${ids.size}`);
      return ids.get(value);
    }
    return value;
  };
  return walk(doc);
}

describe('imports over IMPORT_MAX_BYTES', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp('sqlite', { config: { imports: { maxFileBytes: 2048, leaseMs: 120_000 } } });
  });
  after(() => t.dispose());

  it('are a 413 naming the setting, and write nothing', async () => {
    const before = await counts(t);
    const res = await postImport(t, t.tenant.apiKey, 'trello', t.tenant.teamId, JSON.stringify(smallTrelloExport()));
    assert.equal(res.statusCode, 413);
    assert.match(res.json().message, /IMPORT_MAX_BYTES/);
    assert.deepEqual(await counts(t), before);
    const small = await postImport(t, t.tenant.apiKey, 'trello', t.tenant.teamId, JSON.stringify({ name: 'Small', lists: [], cards: [] }));
    assert.equal(small.statusCode, 202);
  });
});
