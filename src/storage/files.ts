import { createHash, randomBytes } from 'node:crypto';
import { constants, createReadStream, createWriteStream, existsSync } from 'node:fs';
import { access, copyFile, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type AttachmentStore, type ByteRange, newObjectKey, type StoredObject, StoredObjectMissing, StoreUnavailable } from './attachment-store.ts';
import { counted, noteTransferred } from './transfer-memory.ts';

/** A pass-through that counts the bytes and hashes them (SHA-256) on their way to the store. */
export class Measure extends Transform {
  size = 0;
  private readonly hash = createHash('sha256');

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null, data?: Buffer) => void): void {
    this.size += chunk.length;
    this.hash.update(chunk);
    noteTransferred(chunk.length);
    done(null, chunk);
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

/** File system failures that mean the folder cannot be used now (a full, read-only, gone or refused disk), not a bad request. */
const FOLDER_FAULTS = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'EIO', 'ENOTCONN', 'ESTALE', 'ENOTDIR', 'EMFILE', 'ENFILE']);

/** Attachment bytes on the local disk, under one directory, addressed by a storage key. */
export class AttachmentFiles implements AttachmentStore {
  readonly root: string;
  readonly description: string;
  /** The saves still writing, each with the way to stop it and its end (its `.partial` file removed or renamed). */
  private readonly saving = new Set<{ stop: AbortController; ended: Promise<unknown> }>();

  constructor(root: string) {
    this.root = resolve(root);
    this.description = `file:${this.root}`;
  }

  private pathOf(key: string): string {
    const path = resolve(this.root, key);
    if (!path.startsWith(this.root + sep)) throw new Error(`storage key escapes the upload directory: ${key}`);
    return path;
  }

  /** A failure of the folder itself as a StoreUnavailable (a 503, as a bucket that is down); anything else as it is. */
  private fault(error: unknown): never {
    const code = (error as NodeJS.ErrnoException).code;
    if ((error as NodeJS.ErrnoException).syscall && code && FOLDER_FAULTS.has(code))
      throw new StoreUnavailable(`the attachment store ${this.description} is unavailable: ${code}`, { cause: error });
    throw error;
  }

  private newKey(companyId: string): string {
    return newObjectKey(companyId, randomBytes(16).toString('hex'));
  }

  /**
   * Streams `source` to a new file and returns its key, size and checksum. Writes to a temporary
   * name first so that a failed or aborted upload never leaves a half file under a real key.
   */
  save(companyId: string, source: Readable): Promise<StoredObject> {
    return this.saveAt(this.newKey(companyId), source);
  }

  async saveAt(key: string, source: Readable): Promise<StoredObject> {
    const path = this.pathOf(key);
    const partial = `${path}.partial`;
    const measure = new Measure();
    await mkdir(dirname(path), { recursive: true }).catch((error: unknown) => this.fault(error));
    const stop = new AbortController();
    const writing = (async () => {
      try {
        await pipeline(source, measure, createWriteStream(partial, { flags: 'w' }), { signal: stop.signal });
        // A size limit ends the stream early and marks it truncated instead of failing it.
        if ((source as Readable & { truncated?: boolean }).truncated) {
          throw Object.assign(new Error('file too large'), { code: 'FILE_TOO_LARGE' });
        }
        await rename(partial, path);
      } catch (error) {
        await rm(partial, { force: true }).catch(() => {});
        this.fault(error);
      }
    })();
    const save = { stop, ended: writing.catch(() => {}) };
    this.saving.add(save);
    try {
      await writing;
    } finally {
      this.saving.delete(save);
    }
    return { key, size: measure.size, sha256: measure.digest() };
  }

  /**
   * Stops every save still writing and resolves once their `.partial` files are removed. The app
   * calls it as it closes, after the server cut the uploads the shutdown deadline did not wait for:
   * their streams would fail a moment later, after the process has exited, leaving the partial file
   * behind for the purge (which only a crash should need).
   */
  async close(): Promise<void> {
    const running = [...this.saving];
    for (const save of running) save.stop.abort();
    await Promise.all(running.map((save) => save.ended));
  }

  async open(key: string, range?: ByteRange): Promise<Readable> {
    const path = this.pathOf(key);
    if (!(await this.exists(key))) throw new StoredObjectMissing(`no file for ${key}`);
    return counted(createReadStream(path, range ? { start: range.start, end: range.end } : {}));
  }

  async exists(key: string): Promise<boolean> {
    return stat(this.pathOf(key)).then(
      () => true,
      () => false,
    );
  }

  async copy(key: string, companyId: string): Promise<{ key: string; size: number }> {
    const copy = this.newKey(companyId);
    const path = this.pathOf(copy);
    await mkdir(dirname(path), { recursive: true }).catch((error: unknown) => this.fault(error));
    // The kernel copies (reflinks where the file system can): no bytes through this process.
    await copyFile(this.pathOf(key), path, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new StoredObjectMissing(`no file for ${key}`);
      this.fault(error);
    });
    return { key: copy, size: (await stat(path)).size };
  }

  /** Every file under the folder: its key (a `.partial` upload's too) and when it was last written. */
  async *list(): AsyncGenerator<{ key: string; modifiedAt: number }> {
    let entries;
    try {
      entries = await readdir(this.root, { recursive: true, withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const path = join(entry.parentPath, entry.name);
      const modified = await stat(path).then(
        (s) => s.mtimeMs,
        () => undefined,
      );
      if (modified !== undefined) yield { key: relative(this.root, path).split(sep).join('/'), modifiedAt: modified };
    }
  }

  async remove(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  /** The upload folder is writable, or (not created yet) the folder it will be created in is. */
  async check(): Promise<void> {
    let folder = this.root;
    while (!existsSync(folder) && dirname(folder) !== folder) folder = dirname(folder);
    if (!(await stat(folder)).isDirectory()) throw new Error(`${folder} is not a folder`);
    await access(folder, constants.W_OK).catch(() => {
      throw new Error(`${folder} is not writable`);
    });
  }
}
