import { type Migration, type MigrationResultSet, Migrator } from 'kysely/migration';
import * as initial from './migrations/0001_initial.ts';
import * as events from './migrations/0002_events.ts';
import * as webhooks from './migrations/0004_webhooks.ts';
import * as idempotency from './migrations/0005_idempotency.ts';
import * as lifecycle from './migrations/0006_lifecycle.ts';
import * as perfIndexes from './migrations/0007_perf_indexes.ts';
import * as notifications from './migrations/0008_notifications.ts';
import * as cardViews from './migrations/0009_card_views.ts';
import * as eventIndexes from './migrations/0010_event_indexes.ts';
import * as labelPaletteOrder from './migrations/0011_label_palette_order.ts';
import * as cardRecordOrder from './migrations/0012_card_record_order.ts';
import * as people from './migrations/0013_people.ts';
import * as search from './migrations/0017_search.ts';
import * as attachmentChecksums from './migrations/0018_attachment_checksums.ts';
import * as mail from './migrations/0030_mail.ts';
import * as searchWords from './migrations/0031_search_words.ts';
import * as multipartUploads from './migrations/0032_multipart_uploads.ts';
import * as oidcLogins from './migrations/0035_oidc_logins.ts';
import * as imports from './migrations/0036_imports.ts';
import * as searchWordBacklog from './migrations/0037_search_word_backlog.ts';
import * as apiKeyScopes from './migrations/0045_api_key_scopes.ts';
import * as auditLog from './migrations/0046_audit_log.ts';
import * as customFields from './migrations/0055_custom_fields.ts';
import * as rules from './migrations/0065_rules.ts';
import * as recurrences from './migrations/0066_recurrences.ts';
import * as invitationBoard from './migrations/0075_invitation_board.ts';
import * as languages from './migrations/0085_languages.ts';
import * as cardWatchers from './migrations/0090_card_watchers.ts';
import * as overdue from './migrations/0091_overdue.ts';
import * as dailySummary from './migrations/0092_daily_summary.ts';
import * as boardViewers from './migrations/0093_board_viewers.ts';
import * as secondFactors from './migrations/0097_second_factors.ts';
import * as passkeys from './migrations/0098_passkeys.ts';
import * as cardRelations from './migrations/0100_card_relations.ts';
import * as cardTemplates from './migrations/0103_card_templates.ts';
import * as calendarFeeds from './migrations/0105_calendar_feeds.ts';
import * as singleSignOnOnly from './migrations/0106_single_sign_on_only.ts';
import * as importPeople from './migrations/0110_import_people.ts';
import * as boardTemplates from './migrations/0111_board_templates.ts';
import * as teamCardTemplates from './migrations/0112_team_card_templates.ts';
import * as boardStars from './migrations/0113_board_stars.ts';
import * as importInvitations from './migrations/0114_import_invitations.ts';
import * as searchBoardWalk from './migrations/0115_search_board_walk.ts';
import type { StorageConnection } from './open.ts';

/** Migrations are listed here (not read from disk) so they work the same from source and tests. */
const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_events': events,
  '0004_webhooks': webhooks,
  '0005_idempotency': idempotency,
  '0006_lifecycle': lifecycle,
  '0007_perf_indexes': perfIndexes,
  '0008_notifications': notifications,
  '0009_card_views': cardViews,
  '0010_event_indexes': eventIndexes,
  '0011_label_palette_order': labelPaletteOrder,
  '0012_card_record_order': cardRecordOrder,
  '0013_people': people,
  '0017_search': search,
  '0018_attachment_checksums': attachmentChecksums,
  '0030_mail': mail,
  '0031_search_words': searchWords,
  '0032_multipart_uploads': multipartUploads,
  '0035_oidc_logins': oidcLogins,
  '0036_imports': imports,
  '0037_search_word_backlog': searchWordBacklog,
  '0045_api_key_scopes': apiKeyScopes,
  '0046_audit_log': auditLog,
  '0055_custom_fields': customFields,
  '0065_rules': rules,
  '0066_recurrences': recurrences,
  '0075_invitation_board': invitationBoard,
  '0085_languages': languages,
  '0090_card_watchers': cardWatchers,
  '0091_overdue': overdue,
  '0092_daily_summary': dailySummary,
  '0093_board_viewers': boardViewers,
  '0097_second_factors': secondFactors,
  '0098_passkeys': passkeys,
  '0100_card_relations': cardRelations,
  '0103_card_templates': cardTemplates,
  '0105_calendar_feeds': calendarFeeds,
  '0106_single_sign_on_only': singleSignOnOnly,
  '0110_import_people': importPeople,
  '0111_board_templates': boardTemplates,
  '0112_team_card_templates': teamCardTemplates,
  '0113_board_stars': boardStars,
  '0114_import_invitations': importInvitations,
  '0115_search_board_walk': searchBoardWalk,
};

/** The names of every migration, in the order they apply. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(migrations);

/** The database URL names a PostgreSQL schema that does not exist (and the caller did not ask to create it). */
export class MissingSchemaError extends Error {
  readonly schema: string;
  constructor(schema: string) {
    super(`DATABASE_URL names the PostgreSQL schema "${schema}", which does not exist (create it, or run taskboard migrate)`);
    this.name = 'MissingSchemaError';
    this.schema = schema;
  }
}

/**
 * Applies the migrations not applied yet. A schema the database URL names that does not exist is
 * created when `createSchema` (`taskboard migrate`), else refused with a MissingSchemaError: a server
 * started on a mistyped schema name should stop and say so, not fill a new empty schema.
 */
export async function migrateToLatest(
  { db, dialect }: Pick<StorageConnection, 'db' | 'dialect'>,
  options: { createSchema?: boolean } = {},
): Promise<MigrationResultSet> {
  const missing = await dialect.migrations.missingSchema(db);
  if (missing !== undefined) {
    if (!options.createSchema) throw new MissingSchemaError(missing);
    await dialect.migrations.createSchema(db, missing);
  }
  const schema = await dialect.migrations.migrationSchema(db);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  for (let attempt = 1; ; attempt++) {
    const result = await migrator.migrateToLatest();
    if (!result.error) return result;
    if (dialect.migrations.isMigrationRace(result.error) && attempt < 5) continue;
    const cause = result.error instanceof Error ? result.error.message : String(result.error);
    throw new Error(`migration failed: ${cause}`, { cause: result.error });
  }
}
