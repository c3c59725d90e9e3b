/**
 * Board rules over HTTP, on both engines: made by the board's editors, run after the change commits
 * (the worker ticked, no sleeps), their actions recorded as the rule's; no loops, chains bounded,
 * a failing rule or one whose author lost reach paused with the reason; the hourly limit; due-date
 * triggers with an injected clock; the dry run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { manualClock } from '../support/clock.ts';
import { addMember, seedBoard } from '../support/fixtures.ts';
import { type Api, apiClient, buildTestApp, ENGINES, otherCompany, type TestApp } from '../support/harness.ts';

const T0 = Date.parse('2031-03-01T08:00:00.000Z');
const HOUR = 3_600_000;

for (const engine of ENGINES) {
  describe(`board rules [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    let boardId: string;
    let todo: string;
    let doing: string;
    let done: string;
    let doingLabel: string;
    let urgentLabel: string;
    const clock = manualClock(T0);

    before(async () => {
      t = await buildTestApp(engine, { clock, config: { rules: { pollMs: 0, actionsPerHour: 1000 } } });
      api = apiClient(t, t.tenant.apiKey);
      const board = await seedBoard(t.services, t.tenant, { lists: 3, labels: 2 });
      boardId = board.boardId;
      [todo, doing, done] = board.listIds as [string, string, string];
      [doingLabel, urgentLabel] = board.labelIds as [string, string];
    });
    after(() => t.dispose());

    async function newCard(list: string, name = 'Card'): Promise<string> {
      const res = await api('POST', '/api/v1/cards', { list, name });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().card._id;
    }
    async function card(id: string) {
      const res = await api('GET', `/api/v1/cards/${id}`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json().card;
    }
    async function createRule(body: object, as: Api = api) {
      const res = await as('POST', `/api/v1/boards/${boardId}/rules`, body);
      assert.equal(res.statusCode, 201, res.body);
      return res.json().rule as { _id: string; enabled: boolean; pausedReason: string | null };
    }
    async function runs(ruleId: string) {
      const res = await api('GET', `/api/v1/rules/${ruleId}/runs`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json().runs as { status: string; reason: string | null; depth: number; changes: { action: string }[]; card: string }[];
    }
    async function rule(ruleId: string) {
      return (await api('GET', `/api/v1/rules/${ruleId}`)).json().rule;
    }
    /** Passes of the worker until one finds nothing to file or run and the feed holds nothing back. */
    async function settle(app = t) {
      const total = { filed: 0, done: 0, skipped: 0, failed: 0 };
      for (let i = 0; i < 200; i++) {
        const pass = await app.app.rules.tick();
        for (const key of ['filed', 'done', 'skipped', 'failed'] as const) total[key] += pass[key];
        if (!pass.heldBack && pass.filed + pass.done + pass.skipped + pass.failed === 0) return total;
      }
      throw new Error('the rule worker did not settle');
    }
    const move = (id: string, list: string) => api('PATCH', `/api/v1/cards/${id}/position`, { list, position: 'bottom' });
    async function disable(ruleId: string) {
      assert.equal((await api('PATCH', `/api/v1/rules/${ruleId}`, { enabled: false })).statusCode, 200);
    }

    it('moves a card into Done: marked complete and the label Doing removed, once, by the rule', async () => {
      const r = await createRule({
        name: 'Move done cards',
        trigger: { type: 'card.moved.into', list: done },
        actions: [
          { type: 'complete', status: true },
          { type: 'labels.remove', labels: [doingLabel] },
        ],
      });
      const id = await newCard(doing);
      assert.equal((await api('POST', `/v2/cards/${id}/labels`, { labels: [doingLabel] })).statusCode, 200);
      assert.equal((await move(id, done)).statusCode, 200);
      const before = await card(id);
      assert.equal(before.complete.status, false, 'nothing happens on the request path');

      const pass = await settle();
      assert.equal(pass.done, 1);
      const after = await card(id);
      assert.equal(after.complete.status, true);
      assert.deepEqual(
        after.labels.map((l: { _id: string }) => l._id),
        [],
      );
      // one transaction: the card moved on by one change per action, both recorded as the rule's
      const activity = (await api('GET', `/api/v1/cards/${id}/activity`)).json().events as { type: string; actor: { rule?: { _id: string; name: string } } }[];
      const byRule = activity.filter((e) => e.actor?.rule);
      assert.deepEqual(byRule.map((e) => e.type).sort(), ['card.labels.toggled', 'card.updated', 'rule.run']);
      for (const event of byRule) assert.deepEqual(event.actor.rule, { _id: r._id, name: 'Move done cards' });

      // ticking again does nothing more: each trigger runs once
      const again = await settle();
      assert.equal(again.done + again.filed, 0);
      const history = await runs(r._id);
      assert.equal(history.length, 1);
      assert.equal(history[0]?.status, 'done');
      assert.deepEqual(
        history[0]?.changes.map((c) => c.action),
        ['complete', 'labels.remove'],
      );
      await disable(r._id);
    });

    it('skips a run whose conditions do not hold, and says why', async () => {
      const r = await createRule({
        name: 'Urgent into Doing',
        trigger: { type: 'card.moved.into', list: doing },
        conditions: [{ type: 'label', label: urgentLabel, has: true }],
        actions: [{ type: 'comment', text: 'Urgent card started' }],
      });
      const plain = await newCard(todo);
      const urgent = await newCard(todo);
      assert.equal((await api('POST', `/v2/cards/${urgent}/labels`, { labels: [urgentLabel] })).statusCode, 200);
      await move(plain, doing);
      await move(urgent, doing);
      await settle();
      const history = await runs(r._id);
      assert.deepEqual(
        history.map((h) => [h.card, h.status]).sort(),
        [
          [plain, 'skipped'],
          [urgent, 'done'],
        ].sort(),
      );
      const comments = (await api('GET', `/api/v1/cards/${urgent}/comments`)).json().comments as { content: string }[];
      assert.deepEqual(
        comments.map((c) => c.content),
        ['Urgent card started'],
      );
      assert.equal((await api('GET', `/api/v1/cards/${plain}/comments`)).json().comments.length, 0);
      await disable(r._id);
    });

    it("never triggers itself: a toggle rule's own toggle does not run it again", async () => {
      const r = await createRule({
        name: 'Toggle on toggle',
        trigger: { type: 'label.added' },
        actions: [{ type: 'labels.toggle', labels: [urgentLabel] }],
      });
      const id = await newCard(todo);
      await api('POST', `/v2/cards/${id}/labels`, { labels: [doingLabel] });
      await settle();
      assert.equal((await runs(r._id)).length, 1);
      assert.deepEqual((await card(id)).labels.map((l: { _id: string }) => l._id).sort(), [doingLabel, urgentLabel].sort());
      await disable(r._id);
    });

    it('bounds a chain of rules at depth 5 and pauses the rule past it, with the reason', async () => {
      // A → B → A → B …: two rules that move a card back and forth between two lists
      const a = await createRule({
        name: 'To Doing',
        trigger: { type: 'card.moved.into', list: todo },
        actions: [{ type: 'move', list: doing, position: 'top' }],
      });
      const b = await createRule({
        name: 'To Todo',
        trigger: { type: 'card.moved.into', list: doing },
        actions: [{ type: 'move', list: todo, position: 'top' }],
      });
      const id = await newCard(done);
      await move(id, todo);
      await settle();
      const all = [...(await runs(a._id)), ...(await runs(b._id))];
      assert.deepEqual(all.map((run) => run.depth).sort(), [1, 2, 3, 4, 5, 6]);
      assert.equal(all.filter((run) => run.status === 'done').length, 5);
      const failed = all.find((run) => run.status === 'failed');
      assert.match(failed?.reason ?? '', /deeper than 5/);
      const paused = await rule(b._id);
      assert.equal(paused.enabled, false);
      assert.match(paused.pausedReason, /deeper than 5/);
      // the board's activity tells its editors
      const events = (await api('GET', `/api/v1/boards/${boardId}/activity?type=rule.paused`)).json().events;
      assert.equal(events.length, 1);
      await disable(a._id);
    });

    it('pauses a rule whose action fails, and keeps the change that triggered it', async () => {
      const listToDelete = (await api('POST', '/api/v1/lists', { board: boardId, name: 'Gone soon' })).json().list._id as string;
      const r = await createRule({
        name: 'Park it',
        trigger: { type: 'card.created', list: todo },
        actions: [{ type: 'move', list: listToDelete, position: 'top' }],
      });
      assert.equal((await api('DELETE', `/api/v1/lists/${listToDelete}`)).statusCode, 200);
      const id = await newCard(todo);
      const pass = await settle();
      assert.equal(pass.failed, 1);
      assert.equal((await card(id)).list, todo);
      const paused = await rule(r._id);
      assert.equal(paused.enabled, false);
      assert.match(paused.pausedReason, /an action failed/);
      // enabling clears the reason
      const enabled = (await api('PATCH', `/api/v1/rules/${r._id}`, { enabled: true })).json().rule;
      assert.equal(enabled.pausedReason, null);
      await disable(r._id);
    });

    it("acts with its author's reach at run time and pauses once the author lost it", async () => {
      const ann = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: `ann-${engine}@acme.test` });
      const annApi = apiClient(t, ann.apiKey);
      const r = await createRule({ name: "Ann's rule", trigger: { type: 'card.created', list: todo }, actions: [{ type: 'complete', status: true }] }, annApi);
      const first = await newCard(todo);
      await settle();
      assert.equal((await card(first)).complete.status, true);
      assert.equal((await api('DELETE', `/api/v1/teams/${t.tenant.teamId}/members/${ann.userId}`)).statusCode, 200);
      const second = await newCard(todo);
      await settle();
      assert.equal((await card(second)).complete.status, false);
      const paused = await rule(r._id);
      assert.equal(paused.enabled, false);
      assert.match(paused.pausedReason, /no longer reaches the board/);
    });

    it('fires a due-date trigger once per card and due date, at its moment on the injected clock', async () => {
      const r = await createRule({
        name: 'Due tomorrow',
        trigger: { type: 'due.soon', amount: 1, unit: 'days' },
        actions: [{ type: 'labels.add', labels: [urgentLabel] }],
      });
      const id = await newCard(todo);
      const due = new Date(clock.at + 3 * 24 * HOUR).toISOString();
      assert.equal((await api('PATCH', `/api/v1/cards/${id}`, { dueDate: due })).statusCode, 200);
      await settle();
      assert.equal((await runs(r._id)).length, 0, 'two days early: nothing');
      clock.at += 2 * 24 * HOUR + 1;
      await settle();
      assert.equal((await runs(r._id)).length, 1);
      assert.ok((await card(id)).labels.some((l: { _id: string }) => l._id === urgentLabel));
      // a new due date fires again
      const later = new Date(clock.at + 10 * HOUR).toISOString();
      await api('PATCH', `/api/v1/cards/${id}`, { dueDate: later });
      await settle();
      assert.equal((await runs(r._id)).length, 2);
      await disable(r._id);
    });

    it('stops at the hourly limit of actions per board, and goes on next hour', async () => {
      const limited = await buildTestApp(engine, { clock, config: { rules: { pollMs: 0, actionsPerHour: 2 } } });
      try {
        const lapi = apiClient(limited, limited.tenant.apiKey);
        const board = await seedBoard(limited.services, limited.tenant, { lists: 1 });
        const list = board.listIds[0] as string;
        const r = (
          await lapi('POST', `/api/v1/boards/${board.boardId}/rules`, {
            name: 'Complete new',
            trigger: { type: 'card.created' },
            actions: [{ type: 'complete', status: true }],
          })
        ).json().rule;
        for (let i = 0; i < 3; i++) await lapi('POST', '/api/v1/cards', { list, name: `C${i}` });
        await settle(limited);
        const history = (await lapi('GET', `/api/v1/rules/${r._id}/runs`)).json().runs as { status: string; reason: string | null }[];
        assert.deepEqual(history.map((h) => h.status).sort(), ['done', 'done', 'skipped']);
        assert.match(history.find((h) => h.status === 'skipped')?.reason ?? '', /limit/);
        clock.at += HOUR;
        await lapi('POST', '/api/v1/cards', { list, name: 'Next hour' });
        assert.equal((await settle(limited)).done, 1);
      } finally {
        await limited.dispose();
      }
    });

    it('dry-runs a rule against the open cards without changing them', async () => {
      const id = await newCard(doing, 'Dry card');
      const res = await api('POST', `/api/v1/boards/${boardId}/rules/dry-run`, {
        conditions: [{ type: 'list', list: doing }],
        actions: [
          { type: 'move', list: done, position: 'top' },
          { type: 'labels.add', labels: [doingLabel] },
        ],
      });
      assert.equal(res.statusCode, 200, res.body);
      const entry = res.json().cards.find((c: { card: string }) => c.card === id);
      assert.deepEqual(
        entry.changes.map((c: { description: string }) => c.description),
        ['move from “List 1” to the top of “List 2”', 'add the label “Label 0”'],
      );
      // the same changes in fields a client words in its own language
      assert.deepEqual(
        entry.changes.map(({ description: _, ...fields }: { description: string }) => fields),
        [
          { action: 'move', list: done },
          { action: 'labels.add', label: doingLabel, added: true },
        ],
      );
      assert.equal((await card(id)).list, doing);
    });

    it('refuses lists and labels of another board, and hides rules from another company', async () => {
      const res = await api('POST', `/api/v1/boards/${boardId}/rules`, {
        name: 'Bad',
        trigger: { type: 'card.moved.into', list: '0'.repeat(24) },
        actions: [{ type: 'archive' }],
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().details[0].field, 'body.trigger.list');
      const other = await otherCompany(t);
      const mine = await createRule({ name: 'Mine', trigger: { type: 'card.completed' }, actions: [{ type: 'archive' }], enabled: false });
      assert.equal((await other.api('GET', `/api/v1/rules/${mine._id}`)).statusCode, 404);
      assert.equal((await other.api('GET', `/api/v1/boards/${boardId}/rules`)).statusCode, 404);
      assert.equal((await other.api('PATCH', `/api/v1/rules/${mine._id}`, { enabled: true })).statusCode, 404);
      assert.equal((await other.api('DELETE', `/api/v1/rules/${mine._id}`)).statusCode, 404);
    });
  });
}
