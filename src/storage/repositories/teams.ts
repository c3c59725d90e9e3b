import type { Executor, NewRow, Row, Transaction } from '../database.ts';
import { inCreationOrder } from './order.ts';

export type TeamRow = Row<'teams'>;

export async function insertTeam(db: Executor, row: NewRow<'teams'>): Promise<void> {
  await db.insertInto('teams').values(row).execute();
}

export async function findTeamById(db: Executor, id: string): Promise<TeamRow | undefined> {
  return db.selectFrom('teams').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Every team of the company, oldest first. */
export async function findTeamsOfCompany(db: Executor, companyId: string): Promise<TeamRow[]> {
  return db.selectFrom('teams').selectAll().where('company_id', '=', companyId).$call(inCreationOrder).execute();
}

/** A team's id and company, shaped for `requireReach` (a team is its own `team_id`). */
export async function findTeamScope(db: Executor, teamId: string) {
  return db.selectFrom('teams').select(['id', 'company_id', 'id as team_id']).where('id', '=', teamId).executeTakeFirst();
}

/** The company's team of that name (the oldest when several have the name). */
export async function findTeamByName(db: Executor, companyId: string, name: string): Promise<TeamRow | undefined> {
  return db.selectFrom('teams').selectAll().where('company_id', '=', companyId).where('name', '=', name).$call(inCreationOrder).executeTakeFirst();
}

/** Adds the user to the team; false when it was a member already. */
export async function addTeamMember(db: Executor, teamId: string, userId: string, at: string): Promise<boolean> {
  const result = await db
    .insertInto('team_members')
    .values({ team_id: teamId, user_id: userId, created_at: at })
    .onConflict((oc) => oc.columns(['team_id', 'user_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** Takes the user out of the team; false when it was not a member. */
export async function removeTeamMember(db: Executor, teamId: string, userId: string): Promise<boolean> {
  const result = await db.deleteFrom('team_members').where('team_id', '=', teamId).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/**
 * Records one change to a team (its members are part of its record): `__v` + 1 and `updatedAt`.
 * Run first in a transaction, it takes the team's row lock, so membership changes of one team
 * apply one after another. Answers the team's row as it now is; undefined when there is no team.
 */
export async function recordTeamChange(db: Transaction, teamId: string, at: string, name?: string): Promise<TeamRow | undefined> {
  return db
    .updateTable('teams')
    .set((eb) => ({ ...(name !== undefined ? { name } : {}), version: eb('version', '+', 1), updated_at: at }))
    .where('id', '=', teamId)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Takes the team's row lock without counting a change (as `recordTeamChange` takes it first), for a
 * change that learns only afterwards whether it changes anything.
 */
export async function lockTeam(db: Transaction, teamId: string): Promise<void> {
  await db
    .updateTable('teams')
    .set((eb) => ({ version: eb.ref('version') }))
    .where('id', '=', teamId)
    .execute();
}

/** Which of `userIds` are members of the team. */
export async function teamMembersAmong(db: Executor, teamId: string, userIds: readonly string[]): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const rows = await db.selectFrom('team_members').select('user_id').where('team_id', '=', teamId).where('user_id', 'in', userIds).execute();
  return new Set(rows.map((r) => r.user_id));
}

/**
 * What a member of the company is told of a board of a team they are not in: the team's and the
 * company's names, and whom to ask (the company's owners, then its admins, by name; a few at most).
 */
export async function findWhomToAskForTeam(db: Executor, teamId: string, limit: number) {
  const team = await db
    .selectFrom('teams as t')
    .innerJoin('companies as c', 'c.id', 't.company_id')
    .select(['t.name as team_name', 'c.name as company_name', 't.company_id'])
    .where('t.id', '=', teamId)
    .executeTakeFirst();
  if (!team) return undefined;
  const people = await db
    .selectFrom('company_members as cm')
    .innerJoin('users as u', 'u.id', 'cm.user_id')
    .select(['u.id', 'u.full_name', 'cm.role'])
    .where('cm.company_id', '=', team.company_id)
    .where('cm.role', 'in', ['owner', 'admin'])
    .orderBy('cm.role', 'desc')
    .orderBy('u.full_name')
    .orderBy('u.id')
    .limit(limit)
    .execute();
  return { teamName: team.team_name, companyName: team.company_name, people };
}
