/**
 * The lock rule of src/domain/access/access.ts, under load: requests that lock the same lists and cards
 * in parallel all finish (PostgreSQL would otherwise abort one of a circle of waiting transactions
 * as a deadlock, a 500), and leave the lists in a consistent order. SQLite runs one write
 * transaction at a time, so there the races only check the outcome.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConflictError } from '../../src/domain/shared/errors.ts';
import { ChangedMeanwhile, inTransaction } from '../../src/domain/shared/transaction.ts';
import type { Executor } from '../../src/storage/database.ts';
import { Deadlock } from '../../src/storage/errors.ts';
import { seedBoard } from '../support/fixtures.ts';
import { bearer, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';

for (const engine of ENGINES) {
  describe(`lock order of card requests [${engine}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(engine);
    });
    after(() => t.dispose());

    const call = (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
      t.app.inject({ method, url, headers: bearer(t.tenant.apiKey), ...(payload ? { payload } : {}) });
    const createCard = async (list: string, name: string): Promise<string> => {
      const res = await call('POST', '/api/v1/cards', { list, name });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().card._id;
    };
    /** Every answer of a race: none may be a server error. */
    const noServerErrors = (answers: { statusCode: number; body: string }[]) => {
      const failed = answers.filter((a) => a.statusCode >= 500);
      assert.deepEqual(
        failed.map((a) => `${a.statusCode} ${a.body}`),
        [],
      );
    };
    /** A list's unarchived cards by position: [id, position]. */
    const positionsIn = async (list: string) =>
      (
        await t.services.db.selectFrom('cards').select(['id', 'position']).where('list_id', '=', list).where('archived', '=', 0).orderBy('position').execute()
      ).map((r) => [r.id, r.position] as const);

    it('reorders racing bulk moves of the same cards between two lists answer no 5xx and leave distinct positions', async () => {
      const [from, to] = (await seedBoard(t.services, t.tenant, { lists: 2 })).listIds as [string, string];
      const cards: string[] = [];
      for (let i = 0; i < 6; i++) cards.push(await createCard(from, `c${i}`));
      const items = (ids: readonly string[]) => ids.map((cardId) => ({ cardId, companyId: t.tenant.companyId, teamId: t.tenant.teamId }));
      const moveAll = (ids: readonly string[], list: string) =>
        call('PATCH', '/api/v1/cards/move-multi-team', {
          cards: items(ids),
          target: { companyId: t.tenant.companyId, teamId: t.tenant.teamId, list },
        });
      for (let round = 0; round < 8; round++) {
        const answers = await Promise.all([
          moveAll(cards, to),
          ...cards.map((id, i) => call('PATCH', `/api/v1/cards/${id}/position`, { position: i % 3 === 0 ? 'top' : 1, list: i % 2 ? from : to })),
          moveAll([...cards].reverse(), from),
          ...cards.map((id) => call('PATCH', `/api/v1/cards/${id}/position`, { position: 'bottom' })),
        ]);
        noServerErrors(answers);
      }
      const placed = [...(await positionsIn(from)), ...(await positionsIn(to))];
      assert.deepEqual(placed.map(([id]) => id).sort(), [...cards].sort());
      for (const list of [from, to]) {
        const positions = (await positionsIn(list)).map(([, position]) => position);
        assert.equal(new Set(positions).size, positions.length, `positions ${positions.join(', ')}`);
      }
    });

    it("deleting a label while its cards' labels are toggled answers no 5xx, and the label ends up on no card", async () => {
      for (let round = 0; round < 4; round++) {
        const board = await seedBoard(t.services, t.tenant, { lists: 1, labels: 1 });
        const list = board.listIds[0] as string;
        const label = board.labelIds[0] as string;
        const cards: string[] = [];
        for (let i = 0; i < 8; i++) cards.push(await createCard(list, `l${i}`));
        await t.services.db
          .insertInto('card_labels')
          .values(cards.map((card_id) => ({ card_id, label_id: label, created_at: new Date().toISOString() })))
          .execute();
        const toggle = (id: string) => call('POST', `/v2/cards/${id}/labels`, { labels: [label] });
        const answers = await Promise.all([...cards.map(toggle), call('DELETE', `/api/v1/labels/${label}`), ...cards.map(toggle)]);
        noServerErrors(answers);
        const deleted = answers[cards.length] as (typeof answers)[number];
        assert.equal(deleted.statusCode, 200, deleted.body);
        const left = await t.services.db.selectFrom('card_labels').select('card_id').where('label_id', '=', label).execute();
        assert.deepEqual(left, []);
      }
    });

    it('inTransaction runs work again after a deadlock or a change meanwhile, rolled back each time, at most 3 times', async () => {
      const [list] = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds as [string];
      const rename = (trx: Executor, name: string) => trx.updateTable('lists').set({ name }).where('id', '=', list).execute();
      const nameOf = async () => (await t.services.db.selectFrom('lists').select('name').where('id', '=', list).executeTakeFirstOrThrow()).name;

      let runs = 0;
      const answer = await inTransaction(t.services, async (trx) => {
        runs++;
        await rename(trx, `run ${runs}`);
        if (runs === 1) throw new Deadlock('deadlock detected', { cause: null });
        return runs;
      });
      assert.equal(answer, 2);
      assert.equal(await nameOf(), 'run 2');

      runs = 0;
      await assert.rejects(
        inTransaction(t.services, async (trx) => {
          runs++;
          await rename(trx, `lost ${runs}`);
          throw new ChangedMeanwhile('The list');
        }),
        (error: ConflictError) => error instanceof ConflictError && error.status === 409,
      );
      assert.equal(runs, 3);
      assert.equal(await nameOf(), 'run 2');

      runs = 0;
      await assert.rejects(
        inTransaction(t.services, async () => {
          runs++;
          throw new Error('not a race');
        }),
        /not a race/,
      );
      assert.equal(runs, 1);
    });
  });
}
