import type { Readable } from 'node:stream';

/** What a store keeps of one saved upload: where it is, how long it is, and the SHA-256 of its bytes (hex). */
export interface StoredObject {
  key: string;
  size: number;
  sha256: string;
}

/** Bytes `start` to `end` of an object, both included (as in an HTTP Range). */
export interface ByteRange {
  start: number;
  end: number;
}

/** How a download by a presigned URL is answered by the store. */
export interface PresignOptions {
  filename: string;
  mimeType: string;
  expiresSeconds: number;
}

/**
 * Where attachment bytes are kept: a folder on this instance's disk, or a bucket every instance shares.
 * Keys are the store's own (`<company>/<random>`), recorded in `attachments.storage_key`; the
 * database never names a path or a bucket, so the same records read from either store.
 */
export interface AttachmentStore {
  /** `file:/abs/dir` or `s3://bucket/prefix`: for logs and the migrate command, never a secret. */
  readonly description: string;
  /**
   * Streams `source` to a new object in the company's folder. Nothing is left under any key when the
   * source fails (a refused or cut upload) or the store does: the error is the source's when it failed.
   */
  save(companyId: string, source: Readable): Promise<StoredObject>;
  /** As `save`, under a key given (the migrate command keeps each key across stores). */
  saveAt(key: string, source: Readable): Promise<StoredObject>;
  /** Streams the bytes (or a range of them); a missing object is a `StoredObjectMissing`. */
  open(key: string, range?: ByteRange): Promise<Readable>;
  exists(key: string): Promise<boolean>;
  /** A copy of the object in the company's folder, made by the store itself (no bytes through this process where it can). */
  copy(key: string, companyId: string): Promise<{ key: string; size: number }>;
  /** Every object (a half upload's too, where the store shows one) and when it was last written. */
  list(): AsyncGenerator<{ key: string; modifiedAt: number }>;
  /** Removes the object; an object already gone is no error. */
  remove(key: string): Promise<void>;
  /** Throws when the store cannot be written to or reached (readiness). */
  check(): Promise<void>;
  /** A URL the client downloads the object from directly, valid `expiresSeconds`; undefined when the store has none. */
  presign?(key: string, options: PresignOptions): Promise<string>;
  /** Multipart uploads begun before `before` and never finished or aborted, as the store lists them: aborted (the purge). */
  abortStaleUploads?(before: number): Promise<number>;
  /** Aborts one multipart upload the journal names (the store drops its parts) and strikes it off; one already gone is no error. */
  abortUpload?(key: string, uploadId: string): Promise<void>;
  /** Stops the saves still running (leaving nothing of them behind) and lets go of the store's resources. */
  close(): Promise<void>;
}

/** A multipart upload to a bucket: the store's description, the object's key and the store's id for the upload. */
export interface MultipartUpload {
  store: string;
  key: string;
  uploadId: string;
}

/**
 * The multipart uploads begun and not yet completed or aborted, kept outside the store: not every
 * S3-compatible server lists them (ListMultipartUploads), and a killed instance cannot abort its own.
 */
export interface UploadJournal {
  /** Notes the upload before its first part is sent: its own write, committed at once. */
  begun(upload: MultipartUpload): Promise<void>;
  /** Strikes it off once completed or aborted. */
  ended(upload: MultipartUpload): Promise<void>;
}

/** An object a record names is not in the store. */
export class StoredObjectMissing extends Error {
  readonly code = 'STORED_OBJECT_MISSING';
}

/** The store could not be reached or did not answer in time: the request is a 503, and nothing is recorded. */
export class StoreUnavailable extends Error {
  readonly code = 'STORE_UNAVAILABLE';
}

/** A key made of the company and 16 random bytes, so two uploads never share one. */
export function newObjectKey(companyId: string, random: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(companyId)) throw new Error(`unexpected company id in a storage key: ${companyId}`);
  return `${companyId}/${random}`;
}
