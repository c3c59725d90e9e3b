import type { CompanyRole, Executor, NewRow, Row, Transaction } from '../database.ts';

export type CompanyRow = Row<'companies'>;

export async function insertCompany(db: Executor, row: NewRow<'companies'>): Promise<void> {
  await db.insertInto('companies').values(row).execute();
}

export async function findCompanyById(db: Executor, id: string): Promise<CompanyRow | undefined> {
  return db.selectFrom('companies').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Adds a member; a second membership of the same user is a unique violation (the primary key). */
export async function insertCompanyMember(db: Executor, row: { company_id: string; user_id: string; role: CompanyRole; created_at: string }): Promise<void> {
  await db.insertInto('company_members').values(row).execute();
}

export async function findCompanyMember(db: Executor, companyId: string, userId: string) {
  return db.selectFrom('company_members').selectAll().where('company_id', '=', companyId).where('user_id', '=', userId).executeTakeFirst();
}

/** The company's members with their users, in the order they joined. */
export async function findCompanyMembers(db: Executor, companyId: string) {
  return db
    .selectFrom('company_members')
    .innerJoin('users', 'users.id', 'company_members.user_id')
    .selectAll('users')
    .select(['company_members.role', 'company_members.created_at as joined_at'])
    .where('company_members.company_id', '=', companyId)
    .orderBy('company_members.created_at')
    .orderBy('users.id')
    .execute();
}

/** The company of that name the user belongs to (the oldest when several have the name). */
export async function findCompanyOfUserByName(db: Executor, userId: string, name: string) {
  return db
    .selectFrom('companies')
    .innerJoin('company_members', 'company_members.company_id', 'companies.id')
    .select('companies.id')
    .where('companies.name', '=', name)
    .where('company_members.user_id', '=', userId)
    .orderBy('companies.created_at')
    .orderBy('companies.id')
    .executeTakeFirst();
}

/**
 * Records one change to a company (its name, or its members): `__v` + 1 and `updatedAt`, and the new
 * name when given. Run first in a transaction, it takes the company's row lock, so changes of its
 * members (the last-owner rule) apply one after another. Undefined when there is no company.
 */
export async function recordCompanyChange(db: Transaction, id: string, at: string, name?: string): Promise<CompanyRow | undefined> {
  return db
    .updateTable('companies')
    .set((eb) => ({ ...(name !== undefined ? { name } : {}), version: eb('version', '+', 1), updated_at: at }))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function countOwners(db: Executor, companyId: string): Promise<number> {
  const row = await db
    .selectFrom('company_members')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('company_id', '=', companyId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function setCompanyMemberRole(db: Transaction, companyId: string, userId: string, role: CompanyRole): Promise<void> {
  await db.updateTable('company_members').set({ role }).where('company_id', '=', companyId).where('user_id', '=', userId).execute();
}

/** Takes the user out of the company and of its teams; answers the ids of the teams it left. */
export async function removeCompanyMember(db: Transaction, companyId: string, userId: string): Promise<string[]> {
  const teams = await db
    .deleteFrom('team_members')
    .where('user_id', '=', userId)
    .where('team_id', 'in', (eb) => eb.selectFrom('teams').select('id').where('company_id', '=', companyId))
    .returning('team_id')
    .execute();
  await db.deleteFrom('company_members').where('company_id', '=', companyId).where('user_id', '=', userId).execute();
  return teams.map((row) => row.team_id);
}

/** The companies of that exact name, oldest first (a group mapping may name a company instead of its id). */
export async function findCompaniesByName(db: Executor, name: string): Promise<CompanyRow[]> {
  return db.selectFrom('companies').selectAll().where('name', '=', name).orderBy('created_at').orderBy('id').execute();
}

export async function setCompanySingleSignOnOnly(db: Executor, companyId: string, on: boolean): Promise<void> {
  await db
    .updateTable('companies')
    .set({ single_sign_on_only: on ? 1 : 0 })
    .where('id', '=', companyId)
    .execute();
}

/** A company that keeps the user to single sign-on: one with the setting on where the user is not an owner. */
export async function findSingleSignOnOnlyCompanyOf(db: Executor, userId: string): Promise<{ id: string; name: string } | undefined> {
  return db
    .selectFrom('company_members as cm')
    .innerJoin('companies as c', 'c.id', 'cm.company_id')
    .select(['c.id', 'c.name'])
    .where('cm.user_id', '=', userId)
    .where('c.single_sign_on_only', '=', 1)
    .where('cm.role', '!=', 'owner')
    .orderBy('c.created_at')
    .executeTakeFirst();
}
