/**
 * Board templates kept on a team, on both engines (docs/api.md, "Board templates"; docs/decisions/
 * 0303): a template made from a board holds its open lists, labels, custom fields and rules; a board
 * made from it gets them anew, with the rules naming its own lists and labels and acting on its
 * cards; rules that cannot come along are said; the team's members reach templates, nobody else.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addMember, addTeam } from '../support/fixtures.ts';
import { type Api, apiClient, buildTestApp, ENGINES, type OtherCompany, otherCompany, type TestApp } from '../support/harness.ts';

type Json = Record<string, any>;

for (const engine of ENGINES) {
  describe(`board templates [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    let other: OtherCompany;

    before(async () => {
      t = await buildTestApp(engine, { config: { rules: { pollMs: 0, actionsPerHour: 1000 } } });
      api = apiClient(t, t.tenant.apiKey);
      other = await otherCompany(t);
    });
    after(() => t.dispose());

    async function json(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: object, status = 200, as: Api = api): Promise<Json> {
      const res = await as(method, url, body);
      assert.equal(res.statusCode, status, `${method} ${url}: ${res.body}`);
      return res.json();
    }

    /** Passes of the rule worker until one finds nothing to do. */
    async function settle() {
      for (let i = 0; i < 200; i++) {
        const pass = await t.app.rules.tick();
        if (!pass.heldBack && pass.filed + pass.done + pass.skipped + pass.failed === 0) return;
      }
      throw new Error('the rule worker did not settle');
    }

    /** A board set up as a team would: three lists (and an archived one), labels, a field, rules. */
    async function sprintBoard() {
      const { board } = await json('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Sprint 1', defaultLabels: true }, 201);
      const list = async (name: string) => (await json('POST', '/api/v1/lists', { board: board._id, name }, 201)).list._id as string;
      const [todo, doing, done, old] = [await list('To do'), await list('Doing'), await list('Done'), await list('Old')];
      await json('PATCH', `/api/v1/lists/${old}/archive`);
      const labels = (await json('GET', `/api/v1/boards/${board._id}/labels`)).labels as Json[];
      const doingLabel = (await json('PATCH', `/api/v1/labels/${labels[0]?._id}`, { name: 'Doing' })).label._id as string;
      const colors = (await json('GET', '/api/v1/label-colors')).colors as Json[];
      await json(
        'POST',
        `/api/v1/boards/${board._id}/custom-fields`,
        {
          name: 'Size',
          type: 'select',
          showOnCard: true,
          options: [
            { name: 'S', color: colors[0]?._id },
            { name: 'L', color: colors[1]?._id },
          ],
        },
        201,
      );
      await json('POST', `/api/v1/boards/${board._id}/custom-fields`, { name: 'Estimate', type: 'number', unit: 'h' }, 201);
      await json(
        'POST',
        `/api/v1/boards/${board._id}/rules`,
        {
          name: 'Move done cards',
          trigger: { type: 'card.moved.into', list: done },
          conditions: [{ type: 'label', label: doingLabel, has: true }],
          actions: [
            { type: 'complete', status: true },
            { type: 'labels.remove', labels: [doingLabel] },
          ],
        },
        201,
      );
      await json(
        'POST',
        `/api/v1/boards/${board._id}/rules`,
        { name: 'Start', trigger: { type: 'card.moved.into', list: doing }, actions: [{ type: 'labels.add', labels: [doingLabel] }], enabled: false },
        201,
      );
      await json(
        'POST',
        `/api/v1/boards/${board._id}/rules`,
        { name: 'Bury', trigger: { type: 'card.moved.into', list: old }, actions: [{ type: 'archive' }] },
        201,
      );
      return { board, todo, doing, done, doingLabel };
    }

    it('makes a template of a board, and a new board from it with its lists, labels, fields and working rules', async () => {
      const source = await sprintBoard();
      const made = await json('POST', `/api/v1/boards/${source.board._id}/template`, { name: 'Sprint', description: 'Two weeks' }, 201);
      const template = made.template;
      assert.deepEqual([template.name, template.description, template.team, template.sourceBoard], ['Sprint', 'Two weeks', t.tenant.teamId, source.board._id]);
      assert.deepEqual(
        template.content.lists.map((l: Json) => l.name),
        ['To do', 'Doing', 'Done'],
      );
      assert.equal(template.content.labels.length, 6);
      assert.deepEqual(
        template.content.customFields.map((f: Json) => [f.name, f.type, f.unit, f.showOnCard, f.options.map((o: Json) => o.name)]),
        [
          ['Size', 'select', '', true, ['S', 'L']],
          ['Estimate', 'number', 'h', false, []],
        ],
      );
      assert.deepEqual(
        template.content.rules.map((r: Json) => [r.name, r.enabled]),
        [
          ['Move done cards', true],
          ['Start', false],
        ],
      );
      // the rule naming the archived list cannot come along, and the answer says so
      assert.deepEqual(made.leftOut.rules, [{ name: 'Bury', why: 'list', reason: 'it names a list the board no longer shows' }]);
      const createdEvents = (await json('GET', `/api/v1/boards/${source.board._id}/activity`)).events as Json[];
      assert.ok(!createdEvents.some((e) => e.type.startsWith('board_template')), 'a template is the team’s, not an activity of the board');

      // the team's templates; the template read alone
      const listed = (await json('GET', `/api/v1/teams/${t.tenant.teamId}/board-templates`)).templates as Json[];
      assert.deepEqual(
        listed.map((one) => one._id),
        [template._id],
      );
      assert.equal((await json('GET', `/api/v1/board-templates/${template._id}`)).template.name, 'Sprint');

      // a board from it: everything anew, the rules naming the new board's lists and labels
      const res = await api('POST', `/api/v1/board-templates/${template._id}/boards`, { name: 'Sprint 2' });
      assert.equal(res.statusCode, 201, res.body);
      const { board, leftOut } = res.json();
      assert.equal(res.headers.location, `/api/v1/boards/${board._id}`);
      assert.deepEqual([board.name, board.team, leftOut.rules], ['Sprint 2', t.tenant.teamId, []]);
      const lists = (await json('GET', `/api/v1/boards/${board._id}`)).board.lists as Json[];
      assert.deepEqual(
        lists.map((l) => l.name),
        ['To do', 'Doing', 'Done'],
      );
      const labels = (await json('GET', `/api/v1/boards/${board._id}/labels`)).labels as Json[];
      const sourceLabels = (await json('GET', `/api/v1/boards/${source.board._id}/labels`)).labels as Json[];
      assert.deepEqual(
        labels.map((l) => [l.name, l.color._id]),
        sourceLabels.map((l) => [l.name, l.color._id]),
      );
      const fields = (await json('GET', `/api/v1/boards/${board._id}/custom-fields`)).customFields as Json[];
      assert.deepEqual(
        fields.map((f) => [f.name, f.type, f.options.map((o: Json) => o.name)]),
        [
          ['Size', 'select', ['S', 'L']],
          ['Estimate', 'number', []],
        ],
      );
      const rules = (await json('GET', `/api/v1/boards/${board._id}/rules`)).rules as Json[];
      const [todo, , done] = lists.map((l) => l._id as string);
      const doingLabel = labels.find((l) => l.name === 'Doing')?._id;
      const moveDone = rules.find((r) => r.name === 'Move done cards');
      assert.deepEqual(
        [moveDone?.trigger, moveDone?.conditions, moveDone?.actions[1], moveDone?.author],
        [
          { type: 'card.moved.into', list: done },
          [{ type: 'label', label: doingLabel, has: true }],
          { type: 'labels.remove', labels: [doingLabel] },
          t.tenant.userId,
        ],
      );
      assert.equal(rules.find((r) => r.name === 'Start')?.enabled, false);

      // each part recorded as made, in the board's activity
      const events = (await json('GET', `/api/v1/boards/${board._id}/activity?limit=100`)).events as Json[];
      const count = (type: string) => events.filter((e) => e.type === type).length;
      assert.deepEqual(['board.created', 'list.created', 'label.created', 'custom_field.created', 'rule.created'].map(count), [1, 3, 6, 2, 2]);
      assert.equal(events.find((e) => e.type === 'board.created')?.data.boardTemplate, template._id);

      // and the new board's rule acts on its cards
      const { card } = await json('POST', '/api/v1/cards', { list: todo, name: 'Ship it' }, 201);
      await json('POST', `/v2/cards/${card._id}/labels`, { labels: [doingLabel] });
      await json('PATCH', `/api/v1/cards/${card._id}/position`, { list: done, position: 'bottom' });
      await settle();
      const after = (await json('GET', `/api/v1/cards/${card._id}`)).card;
      assert.deepEqual([after.complete.status, after.labels.length], [true, 0]);

      // the source board is as it was
      assert.equal(((await json('GET', `/api/v1/boards/${source.board._id}/rules`)).rules as Json[]).length, 3);
    });

    it('renames and deletes a template; boards made from it stay', async () => {
      const source = await sprintBoard();
      const { template } = await json('POST', `/api/v1/boards/${source.board._id}/template`, undefined, 201);
      assert.equal(template.name, 'Sprint 1', "the board's name by default");
      const renamed = (await json('PATCH', `/api/v1/board-templates/${template._id}`, { name: 'Sprint plan' })).template;
      assert.deepEqual([renamed.name, renamed.__v], ['Sprint plan', 1]);
      const { board } = await json('POST', `/api/v1/board-templates/${template._id}/boards`, undefined, 201);
      assert.equal(board.name, 'Sprint plan', "the template's name by default");
      await json('DELETE', `/api/v1/board-templates/${template._id}`);
      await json('GET', `/api/v1/board-templates/${template._id}`, undefined, 404);
      assert.equal(((await json('GET', `/api/v1/boards/${board._id}`)).board.lists as Json[]).length, 3);
      const refused = await api('PATCH', `/api/v1/board-templates/${template._id}`, { name: 'Gone' });
      assert.equal(refused.statusCode, 404);
    });

    it('keeps templates to the team: 404 to another company and to members of other teams', async () => {
      const source = await sprintBoard();
      const { template } = await json('POST', `/api/v1/boards/${source.board._id}/template`, { name: 'Ours' }, 201);
      const outsider = await addMember(t.services, { companyId: t.tenant.companyId, email: 'otto@acme.test' });
      await addTeam(t.services, t.tenant.companyId, 'Elsewhere', [outsider.userId]);
      for (const as of [other.api, apiClient(t, outsider.apiKey)]) {
        await json('GET', `/api/v1/board-templates/${template._id}`, undefined, 404, as);
        await json('GET', `/api/v1/teams/${t.tenant.teamId}/board-templates`, undefined, 404, as);
        await json('POST', `/api/v1/board-templates/${template._id}/boards`, { name: 'Theirs' }, 404, as);
        await json('PATCH', `/api/v1/board-templates/${template._id}`, { name: 'Theirs' }, 404, as);
        await json('DELETE', `/api/v1/board-templates/${template._id}`, undefined, 404, as);
        await json('POST', `/api/v1/boards/${source.board._id}/template`, { name: 'Theirs' }, 404, as);
      }
      // a member of the team reaches it, and makes boards from it
      const mate = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'mara@acme.test' });
      const mateApi = apiClient(t, mate.apiKey);
      const listed = (await json('GET', `/api/v1/teams/${t.tenant.teamId}/board-templates`, undefined, 200, mateApi)).templates as Json[];
      assert.ok(listed.some((one) => one._id === template._id));
      const { board, leftOut } = await json('POST', `/api/v1/board-templates/${template._id}/boards`, { name: 'Mara’s' }, 201, mateApi);
      assert.deepEqual([board.team, leftOut.rules], [t.tenant.teamId, []]);
      assert.ok(((await json('GET', `/api/v1/boards/${board._id}/rules`, undefined, 200, mateApi)).rules as Json[]).every((r) => r.author === mate.userId));
    });

    it('leaves out a rule that creates cards in a list the maker of the board does not reach', async () => {
      // a rule creating cards on a board of a team only the tenant is in
      const privateTeam = await addTeam(t.services, t.tenant.companyId, 'Private', [t.tenant.userId]);
      const { board: elsewhere } = await json('POST', `/api/v1/boards?teamId=${privateTeam}`, { name: 'Inbox' }, 201);
      const { list: inbox } = await json('POST', '/api/v1/lists', { board: elsewhere._id, name: 'Incoming' }, 201);
      const { board } = await json('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Intake' }, 201);
      await json(
        'POST',
        `/api/v1/boards/${board._id}/rules`,
        { name: 'Forward', trigger: { type: 'card.created' }, actions: [{ type: 'card.create', list: inbox._id, name: 'New request', position: 'top' }] },
        201,
      );
      const { template } = await json('POST', `/api/v1/boards/${board._id}/template`, undefined, 201);
      assert.equal(template.content.rules[0]?.actions[0]?.list, inbox._id, 'a list elsewhere is kept as it is');
      const mate = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'milo@acme.test' });
      const made = await json('POST', `/api/v1/board-templates/${template._id}/boards`, { name: 'Milo’s' }, 201, apiClient(t, mate.apiKey));
      assert.deepEqual(made.leftOut.rules, [{ name: 'Forward', why: 'unreached', reason: 'it creates cards in a list you do not reach' }]);
      // the tenant reaches it: the rule comes along
      const mine = await json('POST', `/api/v1/board-templates/${template._id}/boards`, { name: 'Mine' }, 201);
      assert.deepEqual(mine.leftOut.rules, []);
    });

    it('refuses bad input with a 400', async () => {
      const { board } = await json('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Plain' }, 201);
      await json('POST', `/api/v1/boards/${board._id}/template`, { name: '  ' }, 400);
      await json('POST', `/api/v1/boards/${board._id}/template`, { lists: [] }, 400);
      const { template } = await json('POST', `/api/v1/boards/${board._id}/template`, {}, 201);
      await json('PATCH', `/api/v1/board-templates/${template._id}`, {}, 400);
      await json('POST', `/api/v1/board-templates/${template._id}/boards`, { name: '' }, 400);
    });
  });
}
