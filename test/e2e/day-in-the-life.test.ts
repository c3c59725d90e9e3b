/**
 * One realistic day of a team, through the HTTP API only (the API keys of the two invited members
 * come from the same service the `taskboard keys create` command uses): set up a company and two
 * teams, invite two members, build a board, move work across lists and teams, archive, copy, list
 * my tasks, lose a member; then check the end state as each person sees it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { issueApiKeyForEmail } from '../../src/domain/account/service.ts';
import { Card } from '../../src/schemas/records.ts';
import { apiClient, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { assertSchema } from '../support/schema.ts';

interface CardRecord {
  _id: string;
  name: string;
  list: string;
  board: string;
  team: string;
  members: { _id: string }[];
  labels: { _id: string }[];
  complete: { status: boolean };
  archived: { status: boolean };
  creator: string;
  __v: number;
}

for (const engine of ENGINES) {
  describe(`a day in the life of a team [${engine}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(engine);
    });
    after(() => t.dispose());

    it('sets up, plans, moves, archives, copies and lists the work, and ends in the state everyone expects', async () => {
      const olive = apiClient(t, t.tenant.apiKey);
      const ok = async (status: number, pending: ReturnType<typeof olive>) => {
        const res = await pending;
        assert.equal(res.statusCode, status, `${res.statusCode} ${res.body}`);
        return res.json();
      };

      // Morning: Olive sets up a company with two teams and invites Ann and Bob.
      const { company } = await ok(201, olive('POST', '/api/v1/companies', { name: 'Northwind' }));
      const { team: web } = await ok(201, olive('POST', `/api/v1/teams?companyId=${company._id}`, { name: 'Web' }));
      const { team: ops } = await ok(201, olive('POST', `/api/v1/teams?companyId=${company._id}`, { name: 'Ops' }));
      const invite = (email: string, fullName: string) =>
        ok(201, olive('POST', `/api/v1/companies/${company._id}/members`, { email, fullName, role: 'member' }));
      const ann = (await invite('ann@northwind.test', 'Ann Analyst')).member;
      const bob = (await invite('bob@northwind.test', 'Bob Builder')).member;
      await ok(200, olive('POST', `/api/v1/teams/${web._id}/members`, { userId: ann._id }));
      await ok(200, olive('POST', `/api/v1/teams/${web._id}/members`, { userId: bob._id }));
      await ok(200, olive('POST', `/api/v1/teams/${ops._id}/members`, { userId: bob._id }));
      const annApi = apiClient(t, (await issueApiKeyForEmail(t.services, { email: ann.email })).apiKey);
      const bobApi = apiClient(t, (await issueApiKeyForEmail(t.services, { email: bob.email })).apiKey);
      const teamsOf = async (api: typeof olive) =>
        (await ok(200, api('GET', `/api/v1/teams?companyId=${company._id}`))).teams.map((team: { name: string }) => team.name).sort();
      assert.deepEqual(await teamsOf(annApi), ['Web']);
      assert.deepEqual(await teamsOf(bobApi), ['Ops', 'Web']);

      // Olive builds the Web team's launch board; Ann plans the work on it.
      const { board: launch } = await ok(201, olive('POST', `/api/v1/boards?teamId=${web._id}`, { name: 'Launch' }));
      const list = async (board: string, name: string) => (await ok(201, olive('POST', '/api/v1/lists', { board, name }))).list;
      const todo = await list(launch._id, 'Todo');
      const doing = await list(launch._id, 'Doing');
      const done = await list(launch._id, 'Done');
      const { label: urgent } = await ok(201, olive('POST', `/api/v1/boards/${launch._id}/labels`, { name: 'Urgent', color: '000000000000000000000004' }));
      const card = async (name: string): Promise<CardRecord> => (await ok(201, annApi('POST', '/api/v1/cards', { list: todo._id, name }))).card;
      const copywriting = await card('Write copy');
      const banner = await card('Design banner');
      const venue = await card('Book venue');
      await ok(200, annApi('POST', `/v2/cards/${copywriting._id}/members`, { members: [ann._id] }));
      await ok(200, annApi('POST', `/v2/cards/${banner._id}/members`, { members: [bob._id] }));
      await ok(200, annApi('POST', `/v2/cards/${venue._id}/members`, { members: [ann._id, bob._id] }));
      await ok(200, annApi('POST', `/v2/cards/${venue._id}/labels`, { labels: [urgent._id] }));
      const annTasks = async () => (await ok(200, annApi('GET', '/api/v1/my-tasks'))).cards.map((c: CardRecord) => c.name);
      assert.deepEqual(await annTasks(), ['Write copy', 'Book venue']);

      // Midday: Ann starts the copy; Bob finishes the banner and moves it to Done.
      await ok(200, annApi('PATCH', `/api/v1/cards/${copywriting._id}/position`, { list: doing._id, position: 'top' }));
      await ok(200, bobApi('PATCH', `/api/v1/cards/${banner._id}`, { complete: { status: true } }));
      await ok(200, bobApi('PATCH', `/api/v1/cards/${banner._id}/position`, { list: done._id, position: 0 }));
      const bobOpen = await ok(200, bobApi('GET', `/api/v1/my-tasks?complete=false&companyId=${company._id}`));
      assert.deepEqual(
        bobOpen.cards.map((c: CardRecord) => c.name),
        ['Book venue'],
      );

      // The venue is the Ops team's job: Olive moves it to their board. Ann is not in Ops, and the
      // Urgent label belongs to the launch board, so both stay behind, and the answer says so.
      const { board: events } = await ok(201, olive('POST', `/api/v1/boards?teamId=${ops._id}`, { name: 'Events' }));
      const backlog = await list(events._id, 'Backlog');
      const moved = await ok(
        200,
        olive('PATCH', '/api/v1/cards/move-multi-team', {
          cards: [{ cardId: venue._id, companyId: company._id, teamId: web._id }],
          target: { companyId: company._id, teamId: ops._id, list: backlog._id },
        }),
      );
      assert.equal(moved.cards[0]._id, venue._id);
      assert.deepEqual(moved.dropped, [{ cardId: venue._id, labels: [urgent._id], members: [ann._id], checklistItemMembers: [], customFields: [] }]);
      assert.equal((await annApi('GET', `/api/v1/cards/${venue._id}`)).statusCode, 404, 'Ann no longer reaches the moved card');

      // Afternoon: the banner is archived; Ann copies her card as a template for the next launch.
      await ok(200, olive('PATCH', `/api/v1/cards/archived?teamId=${web._id}`, { cardIds: [banner._id] }));
      const { card: template } = await ok(
        201,
        annApi('POST', `/api/v1/cards/${copywriting._id}/copy`, { list: todo._id, name: 'Write copy (next launch)', keep: { members: false } }),
      );
      assert.deepEqual(template.members, []);
      assert.equal(template.creator, ann._id);
      assert.equal(template.__v, 0);
      await ok(200, annApi('POST', `/v2/cards/${template._id}/members`, { members: [ann._id] }));
      assert.deepEqual(await annTasks(), ['Write copy', 'Write copy (next launch)']);

      // Evening: Ann moves to another project and leaves the Web team; she loses its board at once.
      await ok(200, olive('DELETE', `/api/v1/teams/${web._id}/members/${ann._id}`));
      assert.equal((await annApi('GET', `/api/v1/boards/${launch._id}`)).statusCode, 404);
      assert.deepEqual(await annTasks(), []);

      // End state, as Olive sees the launch board: lists in order, unarchived cards only.
      const { board } = await ok(200, olive('GET', `/api/v1/boards/${launch._id}`));
      const names = board.lists.map((l: { name: string; cards: CardRecord[] }) => [l.name, l.cards.map((c) => c.name)]);
      assert.deepEqual(names, [
        ['Todo', ['Write copy (next launch)']],
        ['Doing', ['Write copy']],
        ['Done', []],
      ]);
      for (const l of board.lists as { cards: CardRecord[] }[]) for (const c of l.cards) assertSchema(Card, c);
      const archived = await ok(200, olive('GET', `/api/v1/lists/${done._id}/cards?archived=true`));
      assert.deepEqual(
        archived.cards.map((c: CardRecord) => [c.name, c.archived.status, c.complete.status, c.members.map((m) => m._id)]),
        [['Design banner', true, true, [bob._id]]],
      );

      // ...and as Bob sees the Ops board: the venue, with him and without the launch board's label.
      const { board: opsBoard } = await ok(200, bobApi('GET', `/api/v1/boards/${events._id}`));
      const [backlogCards] = opsBoard.lists.map((l: { cards: CardRecord[] }) => l.cards);
      assert.equal(backlogCards.length, 1);
      const venueNow = backlogCards[0] as CardRecord;
      assert.deepEqual([venueNow._id, venueNow.team, venueNow.board, venueNow.list], [venue._id, ops._id, events._id, backlog._id]);
      assert.deepEqual(
        venueNow.members.map((m) => m._id),
        [bob._id],
      );
      assert.deepEqual(venueNow.labels, []);
      // After creation: one member toggle (two members in one request), one label toggle, one move.
      assert.equal(venueNow.__v, 3);
      const { company: where } = await ok(200, bobApi('GET', `/api/v1/cards/${venue._id}/company-team`));
      assert.equal(where._id, company._id);
      assert.deepEqual(
        (await ok(200, bobApi('GET', '/api/v1/my-tasks'))).cards.map((c: CardRecord) => c.name),
        ['Book venue'],
      );
    });
  });
}
