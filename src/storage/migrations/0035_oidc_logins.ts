import type { Kysely } from 'kysely';

/**
 * Single sign-on (docs/people.md): a sign-in begun at the OpenID provider, until its callback.
 * The browser holds a random handle in a cookie; the row, found by the handle's SHA-256, holds the
 * state, nonce and PKCE verifier the callback checks, and is deleted when used (once only).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oidc_logins')
    .addColumn('handle_hash', 'text', (c) => c.primaryKey())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    // the same-origin path the person goes to once signed in
    .addColumn('next_path', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oidc_logins_expires').on('oidc_logins').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oidc_logins').execute();
}
