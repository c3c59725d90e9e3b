/**
 * My Tasks pages through the index card_members_user_assigned (migration 0007): the engine reads the
 * user's memberships in page order and stops at the page's end, instead of sorting all of them per
 * page. Checked on each engine's own plan (EXPLAIN) of the query the repository runs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type CompiledQuery, sql } from 'kysely';
import { createBoard } from '../../src/domain/boards/boards.ts';
import { createList } from '../../src/domain/boards/lists.ts';
import { cardViewForm } from '../../src/domain/cards/view.ts';
import type { Caller } from '../../src/domain/shared/caller.ts';
import type { Executor } from '../../src/storage/database.ts';
import { findMyTaskRefs, type MyTasksQuery } from '../../src/storage/repositories/my-tasks.ts';
import { cardRow } from '../support/fixtures.ts';
import { buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { planNodes, postgresPlan, sqlitePlan, statementsOf } from '../support/plans.ts';

/** The one statement `run` sends, with its values. */
async function capture(db: Executor, run: (db: Executor) => Promise<unknown>): Promise<CompiledQuery> {
  const [statement, ...more] = await statementsOf(db, run);
  assert.ok(statement, 'no statement ran');
  assert.equal(more.length, 0);
  return statement;
}

for (const engine of ENGINES) {
  describe(`My Tasks plan [${engine}]`, () => {
    let t: TestApp;
    let owner: Caller;
    let query: MyTasksQuery;

    before(async () => {
      t = await buildTestApp(engine);
      const { userId, teamId, companyId } = t.tenant;
      owner = { userId, apiKeyId: 'k', companyRoles: new Map([[companyId, 'owner']]), teamIds: new Set([teamId]) };
      const board = await createBoard(t.services, owner, { teamId, name: 'Many' });
      const list = await createList(t.services, owner, { board: board._id, name: 'L' }, {});
      const target = { _id: list._id, board: board._id, company: companyId, team: teamId };
      for (let chunk = 0; chunk < 4; chunk++) {
        const rows = Array.from({ length: 250 }, (_, i) => cardRow(target, userId, `card ${chunk}-${i}`, chunk * 250 + i));
        await t.services.db.insertInto('cards').values(rows).execute();
        await t.services.db
          .insertInto('card_members')
          .values(
            rows.map((row, i) => ({ card_id: row.id, user_id: userId, created_at: new Date(Date.UTC(2026, 0, 1) + chunk * 250_000 + i * 1000).toISOString() })),
          )
          .execute();
      }
      // the planners' statistics, as a database in use has them (those of the small tables too: with them,
      // PostgreSQL's plans of a plain join sorted every membership)
      for (const table of ['cards', 'card_members', 'lists', 'boards', 'card_views']) await sql`analyze ${sql.table(table)}`.execute(t.services.db);
      query = { userId, reach: { companyIds: [companyId], adminCompanyIds: [companyId], teamIds: [teamId] }, take: 51, form: cardViewForm() };
    });

    after(async () => {
      await t?.dispose();
    });

    it('reads the memberships in page order from the index, with no sort', async () => {
      const db = t.services.db;
      const compiled = await capture(db, (db) => findMyTaskRefs(db, query));
      const plan =
        engine === 'sqlite'
          ? (await sqlitePlan(db, compiled)).join('\n')
          : planNodes(await postgresPlan(db, compiled))
              .map((node) => `${node['Node Type']} ${node['Index Name'] ?? ''}`)
              .join('\n');
      assert.match(plan, /card_members_user_assigned/, plan);
      assert.doesNotMatch(plan, engine === 'sqlite' ? /TEMP B-TREE FOR ORDER BY/ : /Sort/, plan);
      // and the page is the right one: the first 51 memberships
      assert.equal((await findMyTaskRefs(db, query)).length, 51);
    });

    // PostgreSQL may keep a named statement's plan made without its values (after five runs): that
    // plan sorted every membership of the user when the card was a plain join.
    it('keeps to the index in the plan made without the values', { skip: engine !== 'postgres' }, async () => {
      const db = t.services.db;
      const compiled = await capture(db, (db) => findMyTaskRefs(db, query));
      const plan = await db.transaction().execute(async (trx) => {
        await sql`set local plan_cache_mode = force_generic_plan`.execute(trx);
        await sql.raw(`prepare my_tasks_plan as ${compiled.sql}`).execute(trx);
        // EXECUTE takes its values written out (a utility statement has no bound parameters)
        const literal = (value: unknown): string =>
          value === null || value === undefined
            ? 'null'
            : typeof value === 'number'
              ? String(value)
              : `'${(Array.isArray(value) ? `{${value.join(',')}}` : String(value)).replaceAll("'", "''")}'`;
        const { rows } = await sql<Record<string, unknown>>`explain execute my_tasks_plan(${sql.raw(compiled.parameters.map(literal).join(', '))})`.execute(
          trx,
        );
        await sql`deallocate my_tasks_plan`.execute(trx);
        return rows.map((row) => String(row['QUERY PLAN'])).join('\n');
      });
      assert.match(plan, /card_members_user_assigned/, plan);
      assert.doesNotMatch(plan, /Sort/, plan);
    });
  });
}
