import type { Executor, NewRow, Row } from '../database.ts';

export type OidcLoginRow = Row<'oidc_logins'>;

/** Keeps a sign-in begun, dropping those whose time is up on the way (the table stays small without a job). */
export async function insertOidcLogin(db: Executor, row: NewRow<'oidc_logins'>, now: string): Promise<void> {
  await db.deleteFrom('oidc_logins').where('expires_at', '<=', now).execute();
  await db.insertInto('oidc_logins').values(row).execute();
}

/** Takes the live sign-in of this handle, once: a second callback with the same cookie finds nothing. */
export async function takeOidcLogin(db: Executor, handleHash: string, now: string): Promise<OidcLoginRow | undefined> {
  const row = await db.deleteFrom('oidc_logins').where('handle_hash', '=', handleHash).returningAll().executeTakeFirst();
  return row && row.expires_at > now ? row : undefined;
}
