import { createHash, randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import {
  type AttachmentStore,
  type ByteRange,
  newObjectKey,
  type PresignOptions,
  type StoredObject,
  StoredObjectMissing,
  StoreUnavailable,
  type UploadJournal,
} from './attachment-store.ts';
import type { S3Location } from './s3-location.ts';
import { counted, noteTransferred } from './transfer-memory.ts';

export interface S3StoreOptions extends S3Location {
  endpoint?: string | undefined;
  region?: string | undefined;
  forcePathStyle: boolean;
  /** Bound on connecting and on each wait for the store's answer (a stalled store is cut). */
  timeoutMs: number;
  /** Credentials for tests; a server reads the standard AWS variables (the SDK's default chain). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Where each multipart upload is noted while it runs, so the purge finds one a crash left behind. */
  journal?: UploadJournal | undefined;
}

/** Parts of a multipart upload: S3's smallest. An upload holds one, so at most this much of a file. */
export const PART_BYTES = 5 * 1024 * 1024;
/** Part buffers kept between uploads, so the next ones allocate none. */
const IDLE_PARTS = 2;

/** The SDK's failures that mean the store is down or stalled, not that the request was wrong. */
function unreachable(error: unknown): boolean {
  const e = error as { name?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  if (e.name === 'TimeoutError' || e.name === 'RequestTimeout' || e.name === 'AbortError') return true;
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', 'ECONNABORTED'].includes(e.code ?? '')) return true;
  const status = e.$metadata?.httpStatusCode;
  // 501: the store does not do what was asked (a feature it lacks), which is no outage.
  return status !== undefined && status >= 500 && status !== 501;
}

/** Attachment bytes in an S3-compatible bucket that every instance shares. */
export class S3Store implements AttachmentStore {
  readonly description: string;
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly journal: UploadJournal | undefined;
  /** The saves still running, each with the way to stop it, its source and its end (which never throws). */
  private readonly saving = new Set<{ stop: AbortController; source: Readable; ended: Promise<unknown> }>();
  /** Part buffers of finished saves, for the next ones. */
  private readonly parts: Buffer[] = [];

  constructor(options: S3StoreOptions) {
    this.bucket = options.bucket;
    this.prefix = options.prefix;
    this.journal = options.journal;
    this.description = `s3://${options.bucket}/${options.prefix}`;
    this.client = new S3Client({
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      region: options.region ?? 'us-east-1',
      forcePathStyle: options.forcePathStyle,
      ...(options.credentials ? { credentials: options.credentials } : {}),
      // One retry: a store that is down answers the request in bounded time, as a 503.
      maxAttempts: 2,
      requestHandler: { connectionTimeout: options.timeoutMs, requestTimeout: options.timeoutMs, throwOnRequestTimeout: true },
      // Checksums only where S3 requires one: some S3-compatible servers refuse a part's CRC that its
      // upload did not announce, and the record keeps our own SHA-256 of every byte.
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
  }

  private objectKey(key: string): string {
    return this.prefix + key;
  }

  /** Runs a request; a store that cannot be reached or did not answer in time is a StoreUnavailable. */
  private async call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      if (unreachable(error))
        throw new StoreUnavailable(`the attachment store ${this.description} is unavailable: ${(error as Error).message || (error as Error).name}`, {
          cause: error,
        });
      throw error;
    }
  }

  save(companyId: string, source: Readable): Promise<StoredObject> {
    return this.saveAt(newObjectKey(companyId, randomBytes(16).toString('hex')), source);
  }

  /**
   * Copies the source into one part buffer (taken from the pool) and sends each full part as it
   * fills, waiting for it before reading on: an upload holds one part, whatever the file's size, and
   * the chunks it read die young (see transfer-memory.ts). A file smaller than a part is one PutObject.
   * A multipart upload is written to the journal before its first part and struck off once completed
   * or aborted; any failure aborts it, so the store keeps none of its parts.
   */
  async saveAt(key: string, source: Readable): Promise<StoredObject> {
    const objectKey = this.objectKey(key);
    const stop = new AbortController();
    const running = { stop, source, ended: Promise.resolve() as Promise<unknown> };
    const part = this.parts.pop() ?? Buffer.allocUnsafe(PART_BYTES);
    const hash = createHash('sha256');
    let size = 0;
    let filled = 0;
    let uploadId: string | undefined;
    const sent: { PartNumber: number; ETag: string }[] = [];
    const send = async () => {
      if (!uploadId) {
        const created = await this.call(() => this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: objectKey })));
        uploadId = created.UploadId as string;
        await this.journal?.begun({ store: this.description, key, uploadId });
      }
      const PartNumber = sent.length + 1;
      const answer = await this.call(() =>
        this.client.send(
          new UploadPartCommand({ Bucket: this.bucket, Key: objectKey, UploadId: uploadId, PartNumber, Body: part.subarray(0, filled), ContentLength: filled }),
        ),
      );
      sent.push({ PartNumber, ETag: answer.ETag as string });
      filled = 0;
    };
    const saving = (async () => {
      for await (const chunk of source as AsyncIterable<Buffer>) {
        if (stop.signal.aborted) throw stop.signal.reason;
        hash.update(chunk);
        size += chunk.length;
        noteTransferred(chunk.length);
        for (let offset = 0; offset < chunk.length; ) {
          const copied = chunk.copy(part, filled, offset);
          filled += copied;
          offset += copied;
          if (filled === PART_BYTES) await send();
        }
      }
      // A size limit ends the stream early and marks it truncated instead of failing it.
      if ((source as Readable & { truncated?: boolean }).truncated) throw Object.assign(new Error('file too large'), { code: 'FILE_TOO_LARGE' });
      if (!uploadId) {
        await this.call(() =>
          this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: objectKey, Body: part.subarray(0, filled), ContentLength: filled })),
        );
        return;
      }
      if (filled > 0) await send();
      await this.call(() =>
        this.client.send(new CompleteMultipartUploadCommand({ Bucket: this.bucket, Key: objectKey, UploadId: uploadId, MultipartUpload: { Parts: sent } })),
      );
      // A row left behind (the database failed just now) costs the purge one AbortMultipartUpload,
      // which finds nothing: the object is complete and its record is about to commit.
      await this.journal?.ended({ store: this.description, key, uploadId }).catch(() => {});
    })();
    running.ended = saving.catch(() => {});
    this.saving.add(running);
    let saved = false;
    try {
      await saving;
      saved = true;
    } catch (error) {
      source.destroy();
      if (uploadId) await this.abortUpload(key, uploadId).catch(() => {});
      if (stop.signal.aborted) throw new StoreUnavailable(`the attachment store ${this.description} closed during the upload`, { cause: error });
      throw error;
    } finally {
      this.saving.delete(running);
      // A part still being sent when the save failed may yet be read by its socket: only a finished save's is reused.
      if (saved && this.parts.length < IDLE_PARTS) this.parts.push(part);
    }
    return { key, size, sha256: hash.digest('hex') };
  }

  /** Aborts one multipart upload (the store drops its parts) and strikes it off the journal; one already gone is no error. */
  async abortUpload(key: string, uploadId: string): Promise<void> {
    try {
      await this.call(() => this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: this.objectKey(key), UploadId: uploadId })));
    } catch (error) {
      if (!(error instanceof S3ServiceException && (error.name === 'NoSuchUpload' || error.$metadata.httpStatusCode === 404))) throw error;
    }
    await this.journal?.ended({ store: this.description, key, uploadId });
  }

  async open(key: string, range?: ByteRange): Promise<Readable> {
    try {
      const answer = await this.call(() =>
        this.client.send(
          new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
        ),
      );
      return counted(answer.Body as Readable);
    } catch (error) {
      if (error instanceof S3ServiceException && (error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404))
        throw new StoredObjectMissing(`no object for ${key}`);
      throw error;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.call(() => this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) })));
      return true;
    } catch (error) {
      if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404) return false;
      throw error;
    }
  }

  async copy(key: string, companyId: string): Promise<{ key: string; size: number }> {
    const copy = newObjectKey(companyId, randomBytes(16).toString('hex'));
    try {
      await this.call(() =>
        this.client.send(
          new CopyObjectCommand({ Bucket: this.bucket, Key: this.objectKey(copy), CopySource: `${this.bucket}/${encodeURI(this.objectKey(key))}` }),
        ),
      );
    } catch (error) {
      if (error instanceof S3ServiceException && (error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404))
        throw new StoredObjectMissing(`no object for ${key}`);
      throw error;
    }
    const head = await this.call(() => this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.objectKey(copy) })));
    return { key: copy, size: Number(head.ContentLength ?? 0) };
  }

  async *list(): AsyncGenerator<{ key: string; modifiedAt: number }> {
    let token: string | undefined;
    do {
      const page = await this.call(() =>
        this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix || undefined, ContinuationToken: token })),
      );
      for (const object of page.Contents ?? []) {
        if (!object.Key) continue;
        yield { key: object.Key.slice(this.prefix.length), modifiedAt: object.LastModified?.getTime() ?? 0 };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async remove(key: string): Promise<void> {
    await this.call(() => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) })));
  }

  async check(): Promise<void> {
    await this.call(() => this.client.send(new HeadBucketCommand({ Bucket: this.bucket })));
  }

  presign(key: string, options: PresignOptions): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: this.objectKey(key),
      ResponseContentType: options.mimeType,
      ResponseContentDisposition: `attachment; filename*=UTF-8''${encodeURIComponent(options.filename)}`,
    });
    return getSignedUrl(this.client, command, { expiresIn: options.expiresSeconds });
  }

  /**
   * Multipart uploads under the prefix begun before `before` and never finished: their parts are
   * stored (and paid for) but no object shows them; an instance killed mid-upload leaves one.
   * A store that cannot list them (some S3-compatible servers) has none to abort here.
   */
  async abortStaleUploads(before: number): Promise<number> {
    let aborted = 0;
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    do {
      let page;
      try {
        page = await this.call(() =>
          this.client.send(
            new ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: this.prefix || undefined, KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker }),
          ),
        );
      } catch (error) {
        if (error instanceof S3ServiceException && (error.name === 'NotImplemented' || error.$metadata.httpStatusCode === 501)) return aborted;
        throw error;
      }
      for (const upload of page.Uploads ?? []) {
        if (!upload.Key || !upload.UploadId || (upload.Initiated?.getTime() ?? 0) >= before) continue;
        await this.call(() => this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: upload.Key, UploadId: upload.UploadId })));
        aborted++;
      }
      keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
      uploadIdMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined;
    } while (keyMarker);
    return aborted;
  }

  /**
   * Stops the saves still running and waits for them to end, so an app that closes leaves no half
   * upload behind; then ends the client. A part being sent is let finish (each request is bounded by
   * the store's timeout): a part still arriving after its upload was aborted may be kept by the store
   * (S3 says so too), so each save stops reading and aborts its upload only once nothing is in flight.
   */
  async close(): Promise<void> {
    const running = [...this.saving];
    for (const each of running) {
      each.stop.abort(new Error('the attachment store is closing'));
      each.source.destroy();
    }
    await Promise.all(running.map((each) => each.ended));
    this.parts.length = 0;
    this.client.destroy();
  }
}
