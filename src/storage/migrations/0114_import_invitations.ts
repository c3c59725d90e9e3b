import type { Kysely } from 'kysely';

/**
 * People of an import invited by email (docs/decisions/0157-import-invite-people.md): which
 * invitation stands for which person of the file, so that accepting it puts the new member where
 * the person was. A row goes with its import or its invitation.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('import_invitations')
    .addColumn('invitation_id', 'char(24)', (c) => c.primaryKey().references('invitations.id').onDelete('cascade'))
    .addColumn('import_id', 'char(24)', (c) => c.notNull().references('imports.id').onDelete('cascade'))
    // the file's key of the person (a Trello member id, an exported user id)
    .addColumn('person_key', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('import_invitations_person').on('import_invitations').columns(['import_id', 'person_key']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('import_invitations').execute();
}
