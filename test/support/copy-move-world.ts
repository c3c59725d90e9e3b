/**
 * The people and boards the card copy and move service suites work with: Alice in the tenant's
 * team Core and in team Ops (as the tenant's owner is), Bob in Core only; boards A (two lists, two
 * labels) and B (one list, one label) of Core, and a board of Ops (one list, one label).
 */
import { addMember, addTeam, type BoardFixture, seedBoard } from './fixtures.ts';
import type { TestApp } from './harness.ts';

export interface CopyMoveWorld {
  /** In teams Core and Ops. */
  alice: string;
  /** In team Core only. */
  bob: string;
  bobKey: string;
  opsTeam: string;
  boardA: BoardFixture;
  boardB: BoardFixture;
  boardOps: BoardFixture;
}

export async function copyMoveWorld(t: TestApp): Promise<CopyMoveWorld> {
  const { companyId, teamId } = t.tenant;
  const alice = (await addMember(t.services, { companyId, teamIds: [teamId], email: 'alice@acme.test', fullName: 'Alice' })).userId;
  const { userId: bob, apiKey: bobKey } = await addMember(t.services, { companyId, teamIds: [teamId], email: 'bob@acme.test', fullName: 'Bob' });
  const opsTeam = await addTeam(t.services, companyId, 'Ops', [t.tenant.userId, alice]);
  return {
    alice,
    bob,
    bobKey,
    opsTeam,
    boardA: await seedBoard(t.services, t.tenant, { lists: 2, labels: 2 }),
    boardB: await seedBoard(t.services, t.tenant, { lists: 1, labels: 1 }),
    boardOps: await seedBoard(t.services, { ...t.tenant, teamId: opsTeam }, { lists: 1, labels: 1 }),
  };
}
