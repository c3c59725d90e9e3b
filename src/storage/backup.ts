/**
 * `taskboard backup` and `taskboard restore` on SQLite: one gzipped tar archive holding a manifest,
 * a consistent copy of the database made by SQLite's online backup, and the attachment files its
 * records name (or, with a bucket, a note of the bucket, whose own versioning keeps the bytes).
 * PostgreSQL has better tools of its own (pg_dump, point-in-time recovery): see docs/operations.md.
 */
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import SqliteDatabase from 'better-sqlite3';
import { AttachmentFiles } from './files.ts';

// tar-stream is loaded by a backup or a restore, not by every command (serve among them).
const require = createRequire(import.meta.url);
const tar = () => require('tar-stream') as typeof import('tar-stream');

export const BACKUP_FORMAT_VERSION = 1;
const MANIFEST = 'taskboard-backup.json';
const DATABASE = 'database.sqlite';
const UPLOADS = 'uploads/';

/** Where a deployment keeps attachment bytes: its upload folder, or a bucket the backup only names. */
export type BackupAttachments = { kind: 'file'; dir: string } | { kind: 's3'; bucket: string; prefix: string };

export interface BackupManifest {
  format: 'taskboard-backup';
  formatVersion: number;
  createdAt: string;
  database: { engine: 'sqlite'; entry: string; migration: string | null };
  attachments: { store: 'file'; files: number; bytes: number } | { store: 's3'; bucket: string; prefix: string; note: string };
}

export interface BackupResult {
  file: string;
  manifest: BackupManifest;
  /** Storage keys the database names whose file was not in the upload folder (purged meanwhile, or lost before). */
  missing: string[];
}

/** A backup or restore that cannot be done as asked: the message says what to do instead. */
export class BackupRefused extends Error {}

/** The database's attachment files, named by the copy (deleted ones too: they can still be restored within their purge delay). */
function storageKeys(copy: SqliteDatabase.Database): string[] {
  const rows = copy.prepare('select distinct storage_key as key from attachments where storage_key is not null order by storage_key').all() as {
    key: string;
  }[];
  return rows.map((row) => row.key);
}

function lastMigration(copy: SqliteDatabase.Database): string | null {
  const hasTable = copy.prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'").get();
  if (!hasTable) return null;
  const row = copy.prepare('select name from kysely_migration order by name desc limit 1').get() as { name: string } | undefined;
  return row?.name ?? null;
}

function checkIntegrity(database: SqliteDatabase.Database, what: string): void {
  const rows = database.pragma('integrity_check') as { integrity_check: string }[];
  const problems = rows.map((row) => row.integrity_check).filter((line) => line !== 'ok');
  if (problems.length) throw new Error(`${what} fails SQLite's integrity check: ${problems.slice(0, 3).join('; ')}`);
}

/** The path of `key` under `dir`, refusing a key that would lead out of it. */
function fileOf(dir: string, key: string): string {
  const path = resolve(dir, key);
  if (!path.startsWith(resolve(dir) + sep)) throw new Error(`storage key escapes the upload directory: ${key}`);
  return path;
}

/**
 * Copies the SQLite database at `databaseFile` (while the server may be writing to it) and the
 * attachment files into a new archive at `to`. The archive appears under its name only once complete.
 */
export async function backupSqlite(
  databaseFile: string,
  attachments: BackupAttachments,
  to: string,
  clock: () => Date = () => new Date(),
): Promise<BackupResult> {
  const target = resolve(to);
  if (existsSync(target)) throw new BackupRefused(`${target} exists already; name a new file`);
  if (!existsSync(databaseFile)) throw new BackupRefused(`the database file ${databaseFile} does not exist`);
  await mkdir(dirname(target), { recursive: true });
  // next to the archive, not in /tmp: the copy is as large as the database
  const work = await mkdtemp(join(dirname(target), `.${basename(target)}-`));
  const partial = `${target}.partial`;
  try {
    const copyPath = join(work, DATABASE);
    const source = new SqliteDatabase(databaseFile, { readonly: true, fileMustExist: true });
    try {
      source.pragma('busy_timeout = 5000');
      // All remaining pages in one step: one read transaction, so writes from the server never
      // restart the copy, and in WAL mode they go on while it runs.
      await source.backup(copyPath, { progress: () => 0x7fffffff });
    } finally {
      source.close();
    }
    const copy = new SqliteDatabase(copyPath, { fileMustExist: true });
    let keys: string[];
    let migration: string | null;
    try {
      // the copy keeps the source's WAL mode; a rollback journal makes it one self-contained file,
      // which a restore can open read-only without leaving -wal and -shm files beside it
      copy.pragma('journal_mode = DELETE');
      checkIntegrity(copy, 'the copy of the database');
      keys = attachments.kind === 'file' ? storageKeys(copy) : [];
      migration = lastMigration(copy);
    } finally {
      copy.close();
    }

    const missing: string[] = [];
    const present: { key: string; path: string; size: number }[] = [];
    if (attachments.kind === 'file') {
      for (const key of keys) {
        const path = fileOf(attachments.dir, key);
        const info = await stat(path).catch(() => undefined);
        if (info?.isFile()) present.push({ key, path, size: info.size });
        else missing.push(key);
      }
    }
    const manifest: BackupManifest = {
      format: 'taskboard-backup',
      formatVersion: BACKUP_FORMAT_VERSION,
      createdAt: clock().toISOString(),
      database: { engine: 'sqlite', entry: DATABASE, migration },
      attachments:
        attachments.kind === 'file'
          ? { store: 'file', files: present.length, bytes: present.reduce((sum, file) => sum + file.size, 0) }
          : {
              store: 's3',
              bucket: attachments.bucket,
              prefix: attachments.prefix,
              note: 'Attachment bytes stay in the bucket: keep its versioning on, and restore the bucket as of this backup.',
            },
    };

    const archive = tar().pack();
    const written = pipeline(archive as AsyncIterable<Buffer>, createGzip(), createWriteStream(partial, { flags: 'wx' }));
    const entries = (async () => {
      const now = clock();
      archive.entry({ name: MANIFEST, mtime: now }, `${JSON.stringify(manifest, null, 2)}\n`);
      const databaseSize = (await stat(copyPath)).size;
      await addFile(archive, DATABASE, copyPath, databaseSize, now);
      for (const file of present) await addFile(archive, UPLOADS + file.key, file.path, file.size, now);
      archive.finalize();
    })();
    // a failed entry ends the archive too, so the pipeline does not wait for more
    entries.catch((error: unknown) => archive.destroy(error as Error));
    await Promise.all([written, entries]);
    await rename(partial, target);
    return { file: target, manifest, missing };
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Streams one file into the archive as `name` (its size is in the entry's header, so it is taken first). */
async function addFile(archive: ReturnType<typeof import('tar-stream').pack>, name: string, path: string, size: number, mtime: Date): Promise<void> {
  // tar-stream's entries are streamx streams: piped into, and done when their callback says so
  await new Promise<void>((done, fail) => {
    const entry = archive.entry({ name, size, mtime }, (error) => (error ? fail(error) : done()));
    const file = createReadStream(path, { start: 0, end: Math.max(0, size - 1) });
    file.once('error', (error) => {
      entry.destroy(error);
      fail(error);
    });
    file.pipe(entry as unknown as NodeJS.WritableStream);
  });
}

/** True when `dir` does not exist or holds nothing but empty folders. */
async function isEmptyFolder(dir: string): Promise<boolean> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  for (const entry of entries) {
    if (!entry.isDirectory()) return false;
    if (!(await isEmptyFolder(join(dir, entry.name)))) return false;
  }
  return true;
}

export interface RestoreResult {
  database: string;
  manifest: BackupManifest;
  /** Attachment files written to the upload folder. */
  files: number;
  bytes: number;
}

function parseManifest(text: string): BackupManifest {
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(text) as BackupManifest;
  } catch {
    throw new BackupRefused('the archive is not a Taskboard backup: its manifest is not JSON');
  }
  if (manifest?.format !== 'taskboard-backup') throw new BackupRefused('the archive is not a Taskboard backup');
  if (typeof manifest.formatVersion !== 'number' || manifest.formatVersion > BACKUP_FORMAT_VERSION) {
    throw new BackupRefused(
      `the backup's format version ${manifest.formatVersion} is newer than this Taskboard reads (${BACKUP_FORMAT_VERSION}); restore it with a newer Taskboard`,
    );
  }
  return manifest;
}

async function readAll(stream: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Restores the archive at `from` into an empty data folder: the database at `databaseFile` and the
 * attachment files under `uploadDir`. Refuses a folder holding anything, so nothing is overwritten;
 * a restore that fails leaves the folders as empty as it found them.
 */
export async function restoreSqlite(from: string, databaseFile: string, uploadDir: string): Promise<RestoreResult> {
  const source = resolve(from);
  if (!existsSync(source)) throw new BackupRefused(`${source} does not exist`);
  const databaseDir = dirname(resolve(databaseFile));
  for (const dir of new Set([databaseDir, resolve(uploadDir)])) {
    if (!(await isEmptyFolder(dir))) throw new BackupRefused(`${dir} is not empty: restore into an empty data folder (move the current one aside first)`);
  }
  await mkdir(databaseDir, { recursive: true });
  const restoring = `${resolve(databaseFile)}.restoring`;
  const files = new AttachmentFiles(uploadDir);
  let manifest: BackupManifest | undefined;
  let checksums: Map<string, string | null> | undefined;
  let restoredFiles = 0;
  let bytes = 0;
  try {
    const reader = tar().extract();
    const reading = (async () => {
      for await (const entry of reader) {
        const name = entry.header.name;
        if (!manifest) {
          if (name !== MANIFEST) throw new BackupRefused(`the archive is not a Taskboard backup: it starts with "${name}", not ${MANIFEST}`);
          manifest = parseManifest(await readAll(entry as AsyncIterable<Buffer>));
        } else if (name === manifest.database.entry && !checksums) {
          await pipeline(entry as AsyncIterable<Buffer>, createWriteStream(restoring, { flags: 'wx' }));
          const restored = new SqliteDatabase(restoring, { readonly: true, fileMustExist: true });
          try {
            checkIntegrity(restored, 'the database in the backup');
            const rows = restored.prepare('select storage_key as key, sha256 from attachments where storage_key is not null').all() as {
              key: string;
              sha256: string | null;
            }[];
            checksums = new Map(rows.map((row) => [row.key, row.sha256]));
          } finally {
            restored.close();
          }
        } else if (name.startsWith(UPLOADS) && checksums) {
          const key = name.slice(UPLOADS.length);
          if (!checksums.has(key)) throw new BackupRefused(`the archive holds a file no attachment names: ${name}`);
          const stored = await files.saveAt(key, Readable.from(entry as AsyncIterable<Buffer>, { objectMode: false }));
          const expected = checksums.get(key);
          if (expected && stored.sha256 !== expected)
            throw new BackupRefused(`the file ${name} in the archive differs from the checksum its attachment records`);
          restoredFiles++;
          bytes += stored.size;
        } else {
          throw new BackupRefused(`unexpected entry "${name}" in the archive`);
        }
      }
    })();
    const gunzip = createGunzip();
    const feeding = pipeline(createReadStream(source), gunzip);
    feeding.catch((error: unknown) => reader.destroy(error as Error));
    gunzip.pipe(reader as unknown as NodeJS.WritableStream);
    try {
      await Promise.all([feeding, reading]);
    } finally {
      // a refused archive is not read to its end: let go of the file
      gunzip.destroy();
    }
    if (!manifest) throw new BackupRefused('the archive is empty');
    if (!checksums) throw new BackupRefused('the archive holds no database');
    await rename(restoring, resolve(databaseFile));
    return { database: resolve(databaseFile), manifest, files: restoredFiles, bytes };
  } catch (error) {
    await rm(restoring, { force: true });
    // the folders were empty: take back whatever this restore put there
    // (its contents only: the folder itself may be a mount point)
    const written = await readdir(resolve(uploadDir)).catch(() => []);
    await Promise.all(written.map((name) => rm(join(resolve(uploadDir), name), { recursive: true, force: true })));
    throw error;
  } finally {
    await files.close();
  }
}
