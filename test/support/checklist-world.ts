/**
 * The people and places the checklist suites work with: the tenant's team "Core" with a board, a
 * second team "Elsewhere" of the same company with a board, and another company with a board.
 */
import { bootstrap, type BootstrapResult } from '../../src/domain/account/bootstrap.ts';
import { addMember, addTeam, type MemberFixture, seedBoard } from './fixtures.ts';
import type { TestApp } from './harness.ts';

export interface ChecklistWorld {
  /** A list of team Core. */
  listId: string;
  elsewhereTeam: string;
  /** A list of team Elsewhere. */
  elsewhereListId: string;
  /** In team Core only. */
  mate: MemberFixture;
  /** In teams Core and Elsewhere. */
  both: MemberFixture;
  /** In team Elsewhere only (a plain company member). */
  stranger: MemberFixture;
  /** In the company, in no team. */
  loner: MemberFixture;
  /** The owner of another company. */
  other: BootstrapResult;
  /** A list of the other company. */
  otherListId: string;
}

export async function checklistWorld(t: TestApp): Promise<ChecklistWorld> {
  const { companyId, teamId } = t.tenant;
  const listId = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
  const mate = await addMember(t.services, { companyId, teamIds: [teamId], email: 'mate@acme.test', fullName: 'Mate' });
  const both = await addMember(t.services, { companyId, teamIds: [teamId], email: 'both@acme.test', fullName: 'Both' });
  const stranger = await addMember(t.services, { companyId, email: 'stranger@acme.test', fullName: 'Stranger' });
  const loner = await addMember(t.services, { companyId, email: 'loner@acme.test', fullName: 'Loner' });
  const elsewhereTeam = await addTeam(t.services, companyId, 'Elsewhere', [stranger.userId, both.userId]);
  const elsewhereListId = (await seedBoard(t.services, { companyId, teamId: elsewhereTeam, userId: stranger.userId }, { lists: 1 })).listIds[0] as string;
  const other = await bootstrap(t.services, { company: 'Globex', team: 'Ops', email: 'owner@globex.test', fullName: 'Gina' });
  const otherListId = (await seedBoard(t.services, other, { lists: 1 })).listIds[0] as string;
  return { listId, elsewhereTeam, elsewhereListId, mate, both, stranger, loner, other, otherListId };
}
