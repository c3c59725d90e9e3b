import type { Kysely } from 'kysely';

/**
 * People sign in (docs/people.md): a password hash and the mail choice on each user, server-side
 * sessions, invitations, password resets, the failed sign-ins that throttle guessing, and the mail
 * outbox. Every token is stored as its SHA-256 only, as API keys are.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('password_hash', 'text').execute();
  await db.schema
    .alterTable('users')
    .addColumn('email_notifications', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'char(24)', (c) => c.primaryKey())
    .addColumn('user_id', 'char(24)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    // the synchronizer token a cookie-authenticated change must carry (X-CSRF-Token)
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    // the absolute end; the idle end is last_seen_at + the idle lifetime
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text')
    .addColumn('ip', 'text')
    .addColumn('ended_at', 'text')
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').columns(['user_id', 'created_at']).execute();

  await db.schema
    .createTable('invitations')
    .addColumn('id', 'char(24)', (c) => c.primaryKey())
    .addColumn('company_id', 'char(24)', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    // JSON array of team ids the invitee joins
    .addColumn('team_ids', 'text', (c) => c.notNull())
    .addColumn('inviter_id', 'char(24)', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('accepted_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('invitations_company').on('invitations').columns(['company_id', 'created_at']).execute();
  await db.schema.createIndex('invitations_email').on('invitations').column('email').execute();

  await db.schema
    .createTable('password_resets')
    .addColumn('id', 'char(24)', (c) => c.primaryKey())
    .addColumn('user_id', 'char(24)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();

  await db.schema
    .createTable('sign_in_failures')
    // `email:<address>` or `ip:<address>`
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sign_in_failures_subject').on('sign_in_failures').columns(['subject', 'at']).execute();

  await db.schema
    .createTable('mail_outbox')
    .addColumn('id', 'char(24)', (c) => c.primaryKey())
    .addColumn('to_address', 'text', (c) => c.notNull())
    // `message`: sent as it is; `notification`: gathered with the person's others into one mail
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('user_id', 'char(24)', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .addColumn('last_error', 'text')
    .execute();
  await db.schema.createIndex('mail_outbox_due').on('mail_outbox').columns(['sent_at', 'next_attempt_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['mail_outbox', 'sign_in_failures', 'password_resets', 'invitations', 'sessions']) await db.schema.dropTable(table).execute();
  await db.schema.alterTable('users').dropColumn('email_notifications').execute();
  await db.schema.alterTable('users').dropColumn('password_hash').execute();
}
