import type { CompanyRole, Executor, NewRow, Row } from '../database.ts';

export type CompanyRow = Row<'companies'>;

export async function insertCompany(db: Executor, row: NewRow<'companies'>): Promise<void> {
  await db.insertInto('companies').values(row).execute();
}

export async function findCompanyById(db: Executor, id: string): Promise<CompanyRow | undefined> {
  return db.selectFrom('companies').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Adds a member; a second membership of the same user is a unique violation (the primary key). */
export async function insertCompanyMember(
  db: Executor,
  row: { company_id: string; user_id: string; role: CompanyRole; created_at: string },
): Promise<void> {
  await db.insertInto('company_members').values(row).execute();
}

export async function findCompanyMember(db: Executor, companyId: string, userId: string) {
  return db
    .selectFrom('company_members')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
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
