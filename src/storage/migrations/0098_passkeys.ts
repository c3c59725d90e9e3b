import type { Kysely } from 'kysely';

/**
 * Passkeys (docs/people.md, "Passkeys"): a person's WebAuthn credentials (public keys only), and
 * the challenges a registration or a sign-in waits on, found by the SHA-256 of a handle.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('passkeys')
    .addColumn('id', 'char(24)', (c) => c.primaryKey())
    .addColumn('user_id', 'char(24)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // base64url, as the authenticator names it
    .addColumn('credential_id', 'text', (c) => c.notNull().unique())
    // the COSE public key, base64url
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('counter', 'bigint', (c) => c.notNull().defaultTo(0))
    // JSON array of transports (`internal`, `usb`, `hybrid`, …)
    .addColumn('transports', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('passkeys_user').on('passkeys').columns(['user_id', 'created_at']).execute();

  await db.schema
    .createTable('webauthn_challenges')
    .addColumn('handle_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'char(24)', (c) => c.references('users.id').onDelete('cascade'))
    // `register`, `sign_in` (a passkey alone), `second_factor` (after the password)
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('challenge', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webauthn_challenges_expires').on('webauthn_challenges').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webauthn_challenges').execute();
  await db.schema.dropTable('passkeys').execute();
}
