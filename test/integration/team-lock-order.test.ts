/**
 * A team's members change under the team's row lock taken first (its `__v`), then the member rows:
 * the bootstrap command joining an existing team follows the same order as Add Team Member, so the
 * two never wait on each other in a circle (PostgreSQL; SQLite runs one transaction at a time).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { type BootstrapResult, bootstrap } from '../../src/domain/account/bootstrap.ts';
import { createTeam } from '../../src/domain/companies/teams.ts';
import type { Caller } from '../../src/domain/shared/caller.ts';
import { nowIso } from '../../src/domain/shared/ids.ts';
import { addMember } from '../support/fixtures.ts';
import { openTestStorage, serviceContext, type TestStorage } from '../support/harness.ts';
import { holdLocks, waitingFor } from '../support/held-locks.ts';

describe('team lock order [postgres]', () => {
  let test: TestStorage;
  let tenant: BootstrapResult;
  before(async () => {
    test = await openTestStorage('postgres');
    tenant = await bootstrap(serviceContext(test.storage), { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' });
  });
  after(() => test.dispose());

  it('bootstrap joins a team only once it holds the team: a member added meanwhile under that lock does not deadlock it', async () => {
    const ctx = serviceContext(test.storage);
    const owner: Caller = { userId: tenant.userId, apiKeyId: 'k', companyRoles: new Map([[tenant.companyId, 'owner']]), teamIds: new Set([tenant.teamId]) };
    const team = await createTeam(ctx, owner, tenant.companyId, { name: 'Second' });
    const ann = await addMember(ctx, { companyId: tenant.companyId, email: 'ann@acme.test' });
    // another change of the team's members holds the team's row (as Add Team Member does first) ...
    const holder = await holdLocks(
      test.storage.db,
      (trx) =>
        trx
          .updateTable('teams')
          .set((eb) => ({ version: eb('version', '+', 1) }))
          .where('id', '=', team._id)
          .execute(),
      // ... and, before it commits, adds Ann to it
      (trx) => trx.insertInto('team_members').values({ team_id: team._id, user_id: ann.userId, created_at: nowIso() }).execute(),
    );
    const joining = bootstrap(ctx, { company: 'Acme', team: 'Second', email: 'ann@acme.test', fullName: 'Ann' });
    let waiting: number[] = [];
    while ((waiting = await waitingFor(test.storage.db, holder.pid)).length === 0) await new Promise((resolve) => setImmediate(resolve));
    // waiting for the team, the bootstrap has written no member yet: had it, the holder's insert of the
    // same member would wait for it in turn, a deadlock (PostgreSQL would end one after deadlock_timeout)
    let written: number | undefined;
    try {
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from pg_locks l join pg_class c on c.oid = l.relation
        where c.relname = 'team_members' and l.pid = ${waiting[0]} and l.mode = 'RowExclusiveLock'`.execute(test.storage.db);
      written = rows[0]?.n;
    } finally {
      await holder.release().catch(() => {});
    }
    assert.equal(written, 0, 'the bootstrap wrote the team member before taking the team');
    const joined = await joining;
    assert.equal(joined.teamId, team._id);
    const members = await test.storage.db
      .selectFrom('team_members')
      .select('user_id')
      .where('team_id', '=', team._id)
      .where('user_id', '=', ann.userId)
      .execute();
    assert.equal(members.length, 1);
  });
});
