import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Attachment bytes on the local disk, under one directory, addressed by a storage key. */
export class AttachmentFiles {
  readonly root: string;
  /** The saves still writing, each with the way to stop it and its end (its `.partial` file removed or renamed). */
  private readonly saving = new Set<{ stop: AbortController; ended: Promise<unknown> }>();

  constructor(root: string) {
    this.root = resolve(root);
  }

  private pathOf(key: string): string {
    const path = resolve(this.root, key);
    if (!path.startsWith(this.root + sep)) throw new Error(`storage key escapes the upload directory: ${key}`);
    return path;
  }

  /**
   * Streams `source` to a new file and returns its key and size. Writes to a temporary name first so
   * that a failed or aborted upload never leaves a half file under a real key.
   */
  async save(companyId: string, source: Readable): Promise<{ key: string; size: number }> {
    const key = join(companyId, randomBytes(16).toString('hex'));
    const path = this.pathOf(key);
    const partial = `${path}.partial`;
    await mkdir(resolve(path, '..'), { recursive: true });
    const stop = new AbortController();
    const writing = (async () => {
      try {
        await pipeline(source, createWriteStream(partial, { flags: 'wx' }), { signal: stop.signal });
        // A size limit ends the stream early and marks it truncated instead of failing it.
        if ((source as Readable & { truncated?: boolean }).truncated) {
          throw Object.assign(new Error('file too large'), { code: 'FILE_TOO_LARGE' });
        }
        await rename(partial, path);
      } catch (error) {
        await rm(partial, { force: true });
        throw error;
      }
    })();
    const save = { stop, ended: writing.catch(() => {}) };
    this.saving.add(save);
    try {
      await writing;
    } finally {
      this.saving.delete(save);
    }
    const { size } = await stat(path);
    return { key, size };
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

  open(key: string): ReadStream {
    return createReadStream(this.pathOf(key));
  }

  async exists(key: string): Promise<boolean> {
    return stat(this.pathOf(key)).then(
      () => true,
      () => false,
    );
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
      const modified = await stat(path).then((s) => s.mtimeMs, () => undefined);
      if (modified !== undefined) yield { key: relative(this.root, path), modifiedAt: modified };
    }
  }

  async remove(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }
}
