import type { CompanyMember } from '../../schemas/companies.ts';
import type { Row } from '../../storage/database.ts';
import { userRecord } from '../account/records.ts';

/** A membership row and its user → the API's company member: the user's record plus the role. */
export function companyMemberRecord(user: Row<'users'>, membership: Row<'company_members'>): CompanyMember {
  // a person's mail, language and time zone choices are theirs alone
  const { emailNotifications: _own, locale: _language, timeZone: _zone, ...record } = userRecord(user);
  return { ...record, company: membership.company_id, role: membership.role, joinedAt: membership.created_at };
}
