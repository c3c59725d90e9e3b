import type { Kysely } from 'kysely';

/**
 * The audit log (docs/people.md, "Audit log"): an append-only record of security and administration
 * events, apart from the event record, so that deleting a board or a person leaves its trail: no
 * foreign key ties a row to what it names.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'char(24)', (c) => c.primaryKey())
    .addColumn('at', 'text', (c) => c.notNull())
    // the company whose owners read the entry; null: a person in no company (or no person)
    .addColumn('company_id', 'char(24)')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'char(24)')
    .addColumn('actor_email', 'text')
    .addColumn('api_key_id', 'char(24)')
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'text')
    // JSON object of what the entry adds (a reason, a role, a name); never a secret
    .addColumn('details', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_company_at').on('audit_log').columns(['company_id', 'at', 'id']).execute();
  await db.schema.createIndex('audit_log_at').on('audit_log').column('at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('audit_log').execute();
}
