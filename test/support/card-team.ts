/**
 * The people the comment and cheer suites work with: Alice and Bob in the tenant's team Core, an
 * outsider of the same company who is in team Elsewhere only, and the owner of another company;
 * each with a client, and a list of team Core for their cards.
 */
import { addMember, addTeam, type MemberFixture, seedBoard } from './fixtures.ts';
import { type Api, apiClient, type OtherCompany, otherCompany, type TestApp } from './harness.ts';

export type TeamMember = MemberFixture & { api: Api };

export interface CardTeam {
  /** A list of team Core. */
  listId: string;
  /** The tenant's owner, who makes the cards. */
  owner: Api;
  /** In team Core; full name "Alice Author". */
  alice: TeamMember;
  /** In team Core; full name "Bob Builder". */
  bob: TeamMember;
  /** In the company, in team Elsewhere only: the card's team is out of reach. */
  outsider: TeamMember;
  other: OtherCompany;
}

export async function cardTeam(t: TestApp): Promise<CardTeam> {
  const { companyId, teamId } = t.tenant;
  const member = async (email: string, fullName: string, teamIds: string[]) => {
    const m = await addMember(t.services, { companyId, teamIds, email, fullName });
    return { ...m, api: apiClient(t, m.apiKey) };
  };
  const alice = await member('alice@acme.test', 'Alice Author', [teamId]);
  const bob = await member('bob@acme.test', 'Bob Builder', [teamId]);
  const outsider = await member('out@acme.test', 'out@acme.test', []);
  await addTeam(t.services, companyId, 'Elsewhere', [outsider.userId]);
  return {
    listId: (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string,
    owner: apiClient(t, t.tenant.apiKey),
    alice,
    bob,
    outsider,
    other: await otherCompany(t),
  };
}

/** Everything of a card's conversation as stored (its version, comments, discussions, attachments, cheers): a refused request leaves it equal. */
export async function storedConversation(t: TestApp, cardId: string) {
  const db = t.services.db;
  return {
    card: await db.selectFrom('cards').select(['version', 'updated_at']).where('id', '=', cardId).executeTakeFirstOrThrow(),
    comments: await db.selectFrom('comments').selectAll().where('card_id', '=', cardId).orderBy('id').execute(),
    discussions: await db.selectFrom('discussions').selectAll().where('card_id', '=', cardId).orderBy('id').execute(),
    attachments: await db.selectFrom('attachments').selectAll().where('card_id', '=', cardId).orderBy('id').execute(),
    cheers: await db.selectFrom('cheers').selectAll().where('card_id', '=', cardId).orderBy('id').execute(),
  };
}
