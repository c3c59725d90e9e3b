/**
 * Copies of attachment files for the card copies: made before the transaction where possible, and
 * removed again when the copy that would have recorded them did not.
 */

import { type AttachmentStore, StoredObjectMissing } from '../../storage/attachment-store.ts';
import type { Row } from '../../storage/database.ts';
import type { ServiceContext } from '../context.ts';
import { ConflictError } from '../shared/errors.ts';

type AttachmentRow = Row<'attachments'>;

/**
 * Copies of attachment objects made for one request, in the target company's folder. The bytes are
 * copied before the transaction where possible (so the database is not held during disk work);
 * `take` marks a copy as recorded. `finish` removes every copy the request did not record, and all of
 * them when the request failed, so no file is left without a record.
 */
export class FileCopies {
  private readonly made = new Map<string, { key: string; size: number }>();
  private readonly recorded = new Set<string>();

  private readonly files: AttachmentStore;
  private readonly companyId: string;

  constructor(files: AttachmentStore, companyId: string) {
    this.files = files;
    this.companyId = companyId;
  }

  /** Forgets which copies were recorded: a transaction that runs again records them anew. */
  startOver(): void {
    this.recorded.clear();
  }

  /** Copies the bytes of these attachments ahead of the transaction. */
  async prepare(rows: readonly AttachmentRow[]): Promise<void> {
    for (const row of rows) await this.copyOf(row);
  }

  /** The copy of this attachment's bytes (made now if `prepare` did not), to be recorded. */
  async take(row: AttachmentRow): Promise<{ key: string | null; size: number }> {
    const copy = await this.copyOf(row);
    if (copy) this.recorded.add(row.id);
    return copy ?? { key: null, size: Number(row.size_bytes) };
  }

  private async copyOf(row: AttachmentRow): Promise<{ key: string; size: number } | undefined> {
    if (row.kind !== 'file' || !row.storage_key) return undefined;
    let copy = this.made.get(row.id);
    if (!copy) {
      // The store copies the object itself (a bucket's CopyObject): no bytes through this process.
      copy = await this.files.copy(row.storage_key, this.companyId).catch((error: unknown) => {
        if (!(error instanceof StoredObjectMissing)) throw error;
        throw new ConflictError(`The file of attachment ${row.id} is missing from storage, so it cannot be copied`, [
          { attachment: row.id, message: 'file missing from storage' },
        ]);
      });
      this.made.set(row.id, copy);
    }
    return copy;
  }

  async finish(succeeded: boolean): Promise<void> {
    for (const [id, copy] of this.made) {
      if (!succeeded || !this.recorded.has(id)) await this.files.remove(copy.key);
    }
  }
}

/** Runs `work` with a set of file copies, removing the copies it did not record (all of them on failure). */
export async function withFileCopies<T>(ctx: ServiceContext, companyId: string, work: (files: FileCopies) => Promise<T>): Promise<T> {
  const files = new FileCopies(ctx.files, companyId);
  let succeeded = false;
  try {
    const result = await work(files);
    succeeded = true;
    return result;
  } finally {
    await files.finish(succeeded);
  }
}
