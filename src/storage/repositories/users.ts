import type { Executor, NewRow, Row } from '../database.ts';

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

/** The companies the user belongs to, each with the user's role there, oldest first. */
export async function findCompaniesOfUser(db: Executor, userId: string) {
  return db
    .selectFrom('companies')
    .innerJoin('company_members', 'company_members.company_id', 'companies.id')
    .selectAll('companies')
    .select('company_members.role')
    .where('company_members.user_id', '=', userId)
    .orderBy('companies.created_at')
    .orderBy('companies.id')
    .execute();
}

/** The teams the user is a member of, oldest first. */
export async function findTeamsOfUser(db: Executor, userId: string): Promise<Row<'teams'>[]> {
  return db
    .selectFrom('teams')
    .innerJoin('team_members', 'team_members.team_id', 'teams.id')
    .selectAll('teams')
    .where('team_members.user_id', '=', userId)
    .orderBy('teams.created_at')
    .orderBy('teams.id')
    .execute();
}

/** The members of each of these teams, in the order they joined. */
export async function findTeamMembers(db: Executor, teamIds: readonly string[]) {
  if (teamIds.length === 0) return [];
  return db
    .selectFrom('team_members')
    .innerJoin('users', 'users.id', 'team_members.user_id')
    .select(['team_members.team_id', 'users.id', 'users.full_name', 'users.photo_url'])
    .where('team_members.team_id', 'in', teamIds)
    .orderBy('team_members.created_at')
    .orderBy('users.id')
    .execute();
}

/** Changes the user's own fields; its row as it now is. */
export async function updateUser(
  db: Executor,
  id: string,
  change: {
    full_name?: string;
    photo_url?: string;
    email_notifications?: 0 | 1;
    locale?: string | null;
    time_zone?: string | null;
    email_cadence?: 'minute' | 'daily';
  },
  at: string,
): Promise<UserRow | undefined> {
  return db
    .updateTable('users')
    .set({ ...change, updated_at: at })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}
