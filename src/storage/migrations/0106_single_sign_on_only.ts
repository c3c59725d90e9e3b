import type { Kysely } from 'kysely';

/**
 * A company's "sign in with single sign-on only" (docs/decisions/0285-single-sign-on-only.md): its
 * members other than its owners sign in through the directory or the OpenID Connect provider only.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('companies')
    .addColumn('single_sign_on_only', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('companies').dropColumn('single_sign_on_only').execute();
}
