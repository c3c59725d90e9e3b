import { type Company, LANGUAGES, type Language, type Member, type Team, type User } from '../../schemas/records.ts';
import type { CompanyRole, Row } from '../../storage/database.ts';
import { made } from '../shared/records.ts';

/** Database rows → the API's User, Company and Team records. */

export function userRecord(row: Row<'users'>): User {
  return {
    _id: row.id,
    email: row.email,
    fullName: row.full_name,
    photoUrl: row.photo_url,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    emailNotifications: row.email_notifications === 1,
    locale: languageOf(row.locale),
    timeZone: row.time_zone ?? null,
    emailCadence: row.email_cadence,
  };
}

/** A stored language, or null when none (or one this version no longer speaks) is stored. */
export function languageOf(locale: string | null | undefined): Language | null {
  return (LANGUAGES as readonly string[]).includes(locale ?? '') ? (locale as Language) : null;
}

export function companyRecord(row: Row<'companies'> & { role: CompanyRole }): Company {
  return {
    ...made(row),
    name: row.name,
    role: row.role,
  };
}

export function teamRecord(row: Row<'teams'>, members: Member[]): Team {
  return {
    ...made(row),
    name: row.name,
    company: row.company_id,
    members,
  };
}
