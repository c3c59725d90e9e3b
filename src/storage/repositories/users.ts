import type { CompanyRole, Executor, NewRow, Row } from '../database.ts';

export type UserRow = Row<'users'>;

export async function insertUser(db: Executor, row: NewRow<'users'>): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function findUserById(db: Executor, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
}

export async function findUsersByIds(db: Executor, ids: readonly string[]): Promise<UserRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('users').selectAll().where('id', 'in', ids).execute();
}

/** Everything the caller can reach is derived from these two lists. */
export async function findMemberships(db: Executor, userId: string) {
  const [companies, teams] = await Promise.all([
    db.selectFrom('company_members').select(['company_id', 'role']).where('user_id', '=', userId).execute(),
    db.selectFrom('team_members').select('team_id').where('user_id', '=', userId).execute(),
  ]);
  return {
    companyRoles: new Map<string, CompanyRole>(companies.map((c) => [c.company_id, c.role])),
    teamIds: new Set(teams.map((t) => t.team_id)),
  };
}
