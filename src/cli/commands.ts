/**
 * The administration commands behind `taskboard`: each opens the configured database, does one
 * thing, and closes the database again so the process can exit.
 */

import { readFile, stat } from 'node:fs/promises';
import { type AppConfig, attachmentStorage, ConfigError } from '../config.ts';
import { bootstrap } from '../domain/account/bootstrap.ts';
import { issueApiKeyForEmail } from '../domain/account/service.ts';
import { migrateAttachments } from '../domain/attachments/migrate.ts';
import { purgeDeletedAttachments, purgeOrphanFiles } from '../domain/attachments/purge.ts';
import { sweepDeleted } from '../domain/boards/sweep.ts';
import type { ServiceContext } from '../domain/context.ts';
import { pruneExpiredEvents } from '../domain/events/events.ts';
import { getImport, startImport } from '../domain/imports/service.ts';
import { readTaskboardExport } from '../domain/imports/taskboard.ts';
import { readTrelloExport } from '../domain/imports/trello.ts';
import { checkNewPassword } from '../domain/people/passwords.ts';
import { setPassword } from '../domain/people/sign-in.ts';
import { reindexSearch } from '../domain/search/reindex.ts';
import type { Caller } from '../domain/shared/caller.ts';
import { systemClock } from '../domain/shared/clock.ts';
import { NotFoundError, PayloadTooLargeError } from '../domain/shared/errors.ts';
import { newId } from '../domain/shared/ids.ts';
import { startServer } from '../server.ts';
import { type BackupAttachments, BackupRefused, backupSqlite, restoreSqlite } from '../storage/backup.ts';
import { databaseFileOf, parseDatabaseUrl } from '../storage/database-url.ts';
import { migrateToLatest } from '../storage/migrator.ts';
import { openStorage, type StorageConnection } from '../storage/open.ts';
import { openAttachmentStore } from '../storage/open-attachment-store.ts';
import { firstOwnerOf } from '../storage/repositories/imports.ts';
import { findTeamById } from '../storage/repositories/teams.ts';
import { findCompaniesOfUser, findTeamsOfUser, findUserByEmail, findUserById } from '../storage/repositories/users.ts';
import { reachingDatabase } from '../storage/unavailable.ts';

/** What a command prints: JSON for scripts, or lines for people. */
export type Output = { json: unknown } | { lines: string[] };

function open(config: AppConfig): StorageConnection {
  return openStorage(config.databaseUrl, { ...config.database, poolSize: 2 });
}

/**
 * Migrates first: the first use of the database, so a database out of reach is named as such.
 * `createSchema`: `taskboard migrate` also creates the PostgreSQL schema the URL names.
 */
function migrate(storage: StorageConnection, options: { createSchema?: boolean } = {}) {
  return reachingDatabase(storage.description, () => migrateToLatest(storage, options));
}

/**
 * Runs `work` on a migrated database and always closes it. Migrating first lets `bootstrap` be the
 * very first command on a fresh deployment; it is a no-op on an up-to-date database.
 */
async function withServices<T>(config: AppConfig, work: (ctx: ServiceContext) => Promise<T>): Promise<T> {
  const storage = open(config);
  const files = await openAttachmentStore(config, storage.db);
  try {
    await migrate(storage);
    return await work({ db: storage.db, clock: systemClock, files });
  } finally {
    await files.close();
    await storage.close();
  }
}

export interface BootstrapOptions {
  company: string;
  team: string;
  email: string;
  name: string;
  json: boolean;
  /** Also the user's sign-in password (`--password-stdin`). */
  password?: string;
}

export async function bootstrapCommand(config: AppConfig, options: BootstrapOptions): Promise<Output> {
  // the password is checked before anything is created, so a refused one leaves nothing half made
  if (options.password !== undefined) checkNewPassword(options.password, 'password');
  const result = await withServices(config, async (ctx) => {
    const made = await bootstrap(ctx, { company: options.company, team: options.team, email: options.email, fullName: options.name });
    if (options.password !== undefined) await setPassword(ctx, made.userId, options.password);
    return made;
  });
  if (options.json) return { json: result };
  return {
    lines: [
      `Company  ${options.company.trim()}  (${result.companyId})`,
      `Team     ${options.team.trim()}  (${result.teamId})`,
      `User     ${options.name.trim()} <${options.email.trim().toLowerCase()}>  (${result.userId}), company owner`,
      `API key  ${result.apiKey}`,
      '',
      'Store the API key now: it is not shown again. Use it as "Authorization: Bearer <API key>".',
    ],
  };
}

/** `users set-password`: sets or resets the password of the user with this email; every session of the user ends. */
export async function setPasswordCommand(config: AppConfig, options: { email: string; password: string; json: boolean }): Promise<Output> {
  checkNewPassword(options.password, 'password');
  const userId = await withServices(config, async (ctx) => {
    const user = await findUserByEmail(ctx.db, options.email.trim().toLowerCase());
    if (!user) throw new NotFoundError(`User with email "${options.email.trim()}"`);
    await setPassword(ctx, user.id, options.password);
    return user.id;
  });
  if (options.json) return { json: { userId, passwordSet: true } };
  return { lines: [`Password set for ${options.email.trim().toLowerCase()} (${userId}); every session of the user has ended.`] };
}

export interface KeysCreateOptions {
  email: string;
  name: string | undefined;
  json: boolean;
}

export async function keysCreateCommand(config: AppConfig, options: KeysCreateOptions): Promise<Output> {
  const result = await withServices(config, (ctx) => issueApiKeyForEmail(ctx, { email: options.email, name: options.name }));
  if (options.json) return { json: result };
  return {
    lines: [`API key  ${result.apiKey}`, `Key id   ${result.apiKeyId}, for user ${result.userId}`, '', 'Store the API key now: it is not shown again.'],
  };
}

export async function migrateCommand(config: AppConfig, options: { json: boolean }): Promise<Output> {
  const storage = open(config);
  let applied: string[];
  try {
    const result = await migrate(storage, { createSchema: true });
    applied = (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  } finally {
    await storage.close();
  }
  if (options.json) return { json: { database: storage.description, applied } };
  return {
    lines: applied.length ? [`${storage.description}: applied ${applied.join(', ')}`] : [`${storage.description}: up to date, no migration to apply`],
  };
}

/** Runs the HTTP server until SIGINT/SIGTERM (the server closes the database on the way out). */
export async function serveCommand(config: AppConfig): Promise<void> {
  await startServer(config);
}

/**
 * Sweeps deleted lists and boards; removes attachment records deleted more than `olderThanDays` days
 * ago, and their files, and the released files of deleted cards as old; then files no record names
 * (and stale partial uploads) older than an hour; then events older than EVENT_RETENTION_DAYS and the
 * webhook deliveries that ended before then (the server also prunes those on its own schedule).
 */
export async function purgeAttachmentsCommand(config: AppConfig, options: { olderThanDays: number; json: boolean }): Promise<Output> {
  const result = await withServices(config, async (ctx) => ({
    // deleted lists and boards first: their cards' files join the released ones
    swept: await sweepDeleted(ctx, { batchCards: config.sweep.batchCards }),
    ...(await purgeDeletedAttachments(ctx, { olderThanDays: options.olderThanDays })),
    orphanFiles: await purgeOrphanFiles(ctx),
    events: await pruneExpiredEvents(ctx, config.events.retentionDays),
  }));
  if (options.json) return { json: result };
  return {
    lines: [
      `Purged ${result.records} attachment record(s) deleted before ${result.deletedBefore}, and ${result.files} file(s); ` +
        `${result.orphanFiles} orphan file(s) older than an hour`,
      `Swept ${result.swept.cards} card(s), ${result.swept.lists} list(s) and ${result.swept.boards} board(s) of deleted lists and boards`,
      `Pruned ${result.events.events} event(s) recorded before ${result.events.before} (EVENT_RETENTION_DAYS=${config.events.retentionDays}), ` +
        `and ${result.events.deliveries} webhook deliveries that ended before then`,
    ],
  };
}

/** `taskboard attachments migrate --to STORE`: every attachment copied to the other store, checked. */
export async function migrateAttachmentsCommand(config: AppConfig, options: { to: string; json: boolean }): Promise<Output & { ok: boolean }> {
  const storage = attachmentStorage(options.to.trim() || undefined);
  if (!storage) throw new ConfigError('--to must name a store: s3://bucket/prefix or file:./folder');
  const targetConfig = {
    ...config,
    uploadDir: storage.kind === 'file' ? storage.dir : config.uploadDir,
    attachments: { ...config.attachments, storage },
  };
  // the target notes its multipart uploads in the same database, so a killed run's are purged too
  const result = await withServices(config, async (ctx) => {
    const target = await openAttachmentStore(targetConfig, ctx.db);
    try {
      if (ctx.files.description === target.description) throw new ConfigError(`--to names the store in use (${target.description})`);
      return { from: ctx.files.description, to: target.description, ...(await migrateAttachments(ctx, target)) };
    } finally {
      await target.close();
    }
  });
  const ok = result.missing.length === 0 && result.mismatched.length === 0;
  if (options.json) return { ok, json: { ok, ...result } };
  return {
    ok,
    lines: [
      `Copied ${result.copied} attachment file(s) from ${result.from} to ${result.to}; ${result.skipped} were there already, checksums matching`,
      ...(result.measured ? [`Recorded the SHA-256 of ${result.measured} file(s) stored before checksums were kept`] : []),
      ...result.missing.map((key) => `MISSING in ${result.from}: ${key}`),
      ...result.mismatched.map((key) => `CHECKSUM DIFFERS in ${result.to}: ${key}`),
      ok ? `Done: set ATTACHMENT_STORAGE=${options.to.trim()} and restart the instances` : 'Not done: nothing to switch until the lines above are resolved',
    ],
  };
}

/** Rebuilds the search index from the source tables, in batches of `batch` rows (safe while the server runs). */
export async function reindexCommand(config: AppConfig, options: { batch: number; json: boolean }): Promise<Output> {
  const result = await withServices(config, (ctx) => reindexSearch(ctx, { batch: options.batch }));
  if (options.json) return { json: result };
  return {
    lines: [
      `Indexed ${Object.entries(result.tables)
        .map(([table, rows]) => `${rows} ${table}`)
        .join(', ')}`,
      `Removed ${result.orphans} entr${result.orphans === 1 ? 'y' : 'ies'} whose record was gone`,
    ],
  };
}

/** The SQLite file of the configuration, or the refusal that PostgreSQL has tools of its own. */
function sqliteFileOf(config: AppConfig, command: 'backup' | 'restore'): string {
  const file = databaseFileOf(parseDatabaseUrl(config.databaseUrl));
  if (file === undefined) {
    throw new BackupRefused(
      `${command} works on a SQLite file; for PostgreSQL use pg_dump or point-in-time recovery, and the bucket's versioning (docs/operations.md, "Backups")`,
    );
  }
  return file;
}

function attachmentsOf(config: AppConfig): BackupAttachments {
  const storage = config.attachments.storage;
  return storage?.kind === 's3' ? { kind: 's3', bucket: storage.bucket, prefix: storage.prefix } : { kind: 'file', dir: config.uploadDir };
}

/** `taskboard backup --to FILE`: the database and its attachment files in one archive, while the server runs. */
export async function backupCommand(config: AppConfig, options: { to: string; json: boolean }): Promise<Output & { ok: boolean }> {
  const result = await backupSqlite(sqliteFileOf(config, 'backup'), attachmentsOf(config), options.to);
  const ok = result.missing.length === 0;
  if (options.json) return { ok, json: { ok, file: result.file, manifest: result.manifest, missing: result.missing } };
  const { attachments } = result.manifest;
  return {
    ok,
    lines: [
      `Backed up ${config.databaseUrl} to ${result.file}`,
      attachments.store === 'file'
        ? `with ${attachments.files} attachment file(s), ${attachments.bytes} bytes`
        : `Attachments stay in s3://${attachments.bucket}/${attachments.prefix}: ${attachments.note}`,
      ...result.missing.map((key) => `MISSING in ${config.uploadDir}: ${key}`),
    ],
  };
}

/** `taskboard restore --from FILE`: a backup into an empty data folder. */
export async function restoreCommand(config: AppConfig, options: { from: string; json: boolean }): Promise<Output> {
  const result = await restoreSqlite(options.from, sqliteFileOf(config, 'restore'), config.uploadDir);
  if (options.json) return { json: result };
  const { attachments } = result.manifest;
  return {
    lines: [
      `Restored the backup of ${result.manifest.createdAt} to ${result.database}, and ${result.files} attachment file(s) (${result.bytes} bytes) to ${config.uploadDir}`,
      ...(attachments.store === 's3' ? [`Its attachments were in s3://${attachments.bucket}/${attachments.prefix}: ${attachments.note}`] : []),
    ],
  };
}

export interface ImportOptions {
  source: 'trello' | 'taskboard';
  file: string;
  team: string;
  /** The importer's email; unset: the first owner of the team's company. */
  as?: string | undefined;
  json: boolean;
}

/**
 * `taskboard import trello|taskboard FILE --team ID`: the import the API starts, run to its end in
 * this process (a server on the same database sees its events as its webhooks and streams poll).
 */
export async function importCommand(config: AppConfig, options: ImportOptions): Promise<Output & { ok: boolean }> {
  const size = (await stat(options.file)).size;
  if (size > config.imports.maxFileBytes)
    throw new PayloadTooLargeError(`${options.file} is larger than IMPORT_MAX_BYTES (${config.imports.maxFileBytes} bytes)`);
  const text = await readFile(options.file, 'utf8');
  return withServices(config, async (ctx) => {
    const team = await findTeamById(ctx.db, options.team);
    if (!team) throw new NotFoundError(`Team ${options.team}`);
    const userId = options.as ? (await findUserByEmail(ctx.db, options.as.trim().toLowerCase()))?.id : await firstOwnerOf(ctx.db, team.company_id);
    const user = userId ? await findUserById(ctx.db, userId) : undefined;
    if (!user) throw new NotFoundError(options.as ? `User with email "${options.as}"` : "An owner of the team's company");
    const caller: Caller = {
      userId: user.id,
      apiKeyId: null,
      companyRoles: new Map((await findCompaniesOfUser(ctx.db, user.id)).map((company) => [company.id, company.role])),
      teamIds: new Set((await findTeamsOfUser(ctx.db, user.id)).map((t) => t.id)),
      requestId: `cli-import-${newId()}`,
    };
    const read = options.source === 'trello' ? readTrelloExport : readTaskboardExport;
    const started = await startImport(ctx, caller, { teamId: team.id, scope: {}, plan: () => read(text) }, { leaseMs: config.imports.leaseMs });
    await started.finished;
    const ended = await getImport(ctx, caller, started.import._id);
    const ok = ended.status === 'done';
    if (options.json) return { ok, json: ended };
    const { brought, members, leftOut, notes } = ended.report;
    const left = Object.entries(leftOut).filter(([, n]) => n > 0);
    return {
      ok,
      lines: [
        ok ? `Imported "${ended.boardName}" as board ${ended.board} (import ${ended._id})` : `Import ${ended._id} failed: ${ended.error}`,
        `Brought  ${brought.lists} lists, ${brought.cards} cards, ${brought.labels} labels, ${brought.checklists} checklists (${brought.checklistItems} items), ${brought.comments} comments, ${brought.attachments} links, ${brought.customFields ?? 0} custom fields (${brought.customFieldValues ?? 0} values), ${brought.relations ?? 0} relations`,
        `People   ${members.matched.length} matched${members.unmatched.length ? `; not matched: ${members.unmatched.map((p) => p.name || p.username).join(', ')}` : ''}`,
        `Left out ${left.length ? left.map(([kind, n]) => `${kind} ${n}`).join(', ') : 'nothing'}`,
        ...notes.map((note) => `Note     ${note}`),
      ],
    };
  });
}
