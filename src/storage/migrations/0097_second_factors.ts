import type { Kysely } from 'kysely';

/**
 * Second factors (docs/people.md, "Second factor"): a person's authenticator app (TOTP) with its
 * secret sealed under a server key, its single-use recovery codes (SHA-256 only), the challenges
 * that stand between a right password and a session, the keys that seal the secrets, and a
 * company's requirement that its members have a second factor.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('totp_factors')
    .addColumn('user_id', 'char(24)', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    // AES-256-GCM sealed Base32 secret: `<key id>.<iv>.<tag>.<ciphertext>` (base64url)
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    // null until a first code from the app confirms it: an unconfirmed factor is not asked for
    .addColumn('confirmed_at', 'text')
    // the last time step a code was accepted for: that code, and older ones, are refused (no reuse)
    .addColumn('last_step', 'integer')
    .execute();

  await db.schema
    .createTable('recovery_codes')
    .addColumn('id', 'char(24)', (c) => c.primaryKey())
    .addColumn('user_id', 'char(24)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('recovery_codes_user').on('recovery_codes').columns(['user_id', 'code_hash']).execute();

  await db.schema
    .createTable('sign_in_challenges')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'char(24)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // `second_factor`: a code or a passkey finishes the sign-in; `enrol`: the person must enrol first
    .addColumn('purpose', 'text', (c) => c.notNull())
    // how the password step went (`password`, `sso`), for the audit log
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sign_in_challenges_expires').on('sign_in_challenges').column('expires_at').execute();

  await db.schema
    .createTable('server_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // 32 random bytes, base64url: used only when SECOND_FACTOR_KEY is not set
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .alterTable('companies')
    .addColumn('require_second_factor', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('companies').dropColumn('require_second_factor').execute();
  await db.schema.dropTable('server_keys').execute();
  await db.schema.dropTable('sign_in_challenges').execute();
  await db.schema.dropTable('recovery_codes').execute();
  await db.schema.dropTable('totp_factors').execute();
}
