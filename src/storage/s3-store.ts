import { randomBytes } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import {
  type AttachmentStore,
  type ByteRange,
  newObjectKey,
  type PresignOptions,
  type StoredObject,
  StoredObjectMissing,
  StoreUnavailable,
} from './attachment-store.ts';
import { Measure } from './files.ts';
import type { S3Location } from './s3-location.ts';

export interface S3StoreOptions extends S3Location {
  endpoint?: string | undefined;
  region?: string | undefined;
  forcePathStyle: boolean;
  /** Bound on connecting and on each wait for the store's answer (a stalled store is cut). */
  timeoutMs: number;
  /** Credentials for tests; a server reads the standard AWS variables (the SDK's default chain). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/** Parts of a multipart upload: S3's smallest. Only one is buffered at a time, so an upload holds at most this much. */
const PART_BYTES = 5 * 1024 * 1024;

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
  /** The multipart uploads still running, each with its end (which never throws). */
  private readonly uploading = new Set<{ upload: Upload; ended: Promise<unknown> }>();

  constructor(options: S3StoreOptions) {
    this.bucket = options.bucket;
    this.prefix = options.prefix;
    this.description = `s3://${options.bucket}/${options.prefix}`;
    this.client = new S3Client({
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      region: options.region ?? 'us-east-1',
      forcePathStyle: options.forcePathStyle,
      ...(options.credentials ? { credentials: options.credentials } : {}),
      // One retry: a store that is down answers the request in bounded time, as a 503.
      maxAttempts: 2,
      requestHandler: { connectionTimeout: options.timeoutMs, requestTimeout: options.timeoutMs, throwOnRequestTimeout: true },
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

  async saveAt(key: string, source: Readable): Promise<StoredObject> {
    const measure = new Measure();
    let sourceError: unknown;
    source.once('error', (error) => {
      sourceError = error;
      measure.destroy(error);
    });
    const body = source.pipe(measure).pipe(new PassThrough());
    measure.once('error', (error) => body.destroy(error));
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: this.objectKey(key), Body: body },
      partSize: PART_BYTES,
      queueSize: 1,
      // A failed multipart upload is aborted, so the store keeps none of its parts.
      leavePartsOnError: false,
    });
    const done = upload.done();
    const running = { upload, ended: done.catch(() => {}) };
    this.uploading.add(running);
    try {
      await done;
    } catch (error) {
      // The source's failure (a refused or cut upload) is the one to answer with, not the store's.
      if (sourceError) throw sourceError;
      source.destroy();
      if (unreachable(error))
        throw new StoreUnavailable(`the attachment store ${this.description} is unavailable: ${(error as Error).message}`, { cause: error });
      throw error;
    } finally {
      this.uploading.delete(running);
    }
    if (sourceError) {
      await this.remove(key).catch(() => {});
      throw sourceError;
    }
    return { key, size: measure.size, sha256: measure.digest() };
  }

  async open(key: string, range?: ByteRange): Promise<Readable> {
    try {
      const answer = await this.call(() =>
        this.client.send(
          new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
        ),
      );
      return answer.Body as Readable;
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
   * Aborts the multipart uploads still running (the store drops their parts) and waits for them to
   * end, so an app that closes leaves no half upload behind for the purge; then ends the client.
   */
  async close(): Promise<void> {
    const running = [...this.uploading];
    await Promise.all(running.map((each) => each.upload.abort().catch(() => {})));
    await Promise.all(running.map((each) => each.ended));
    this.client.destroy();
  }
}
