/**
 * A real S3-compatible server for the tests: s3rver (an npm package) started in this process on a
 * free loopback port, its objects in a temporary folder. Each server has one bucket.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver, { type S3rverContext } from 's3rver';
import type { AppConfig } from '../../src/config.ts';
import type { AttachmentStore } from '../../src/storage/attachment-store.ts';

// s3rver checks signatures against its own key pair; the SDK reads the standard variables.
export const S3_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };
process.env.AWS_ACCESS_KEY_ID ??= S3_CREDENTIALS.AWS_ACCESS_KEY_ID;
process.env.AWS_SECRET_ACCESS_KEY ??= S3_CREDENTIALS.AWS_SECRET_ACCESS_KEY;

export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** The configuration of an app that stores its attachments in this bucket. */
  attachments(overrides?: Partial<AppConfig['attachments']>): AppConfig['attachments'];
  /** The environment of a `taskboard` child process on this bucket. */
  env(): Record<string, string>;
  /** The ids of the bucket's multipart uploads begun and neither completed nor aborted (their parts kept). */
  pendingUploads(): string[];
  close(): Promise<void>;
}

export async function startS3(options: { port?: number } = {}): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), 'taskboard-s3-'));
  const server = new S3rver({ port: options.port ?? 0, address: '127.0.0.1', silent: true, directory });
  addAbortMultipartUpload(server);
  const { port } = (await server.run()) as unknown as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  const bucket = `tb-${randomBytes(6).toString('hex')}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  client.destroy();
  let closed = false;
  return {
    endpoint,
    bucket,
    attachments: (overrides = {}) => ({
      storage: { kind: 's3', bucket, prefix: 'attachments/' },
      download: 'stream',
      redirectSeconds: 300,
      timeoutMs: 5000,
      s3: { endpoint, region: 'us-east-1', forcePathStyle: true },
      ...overrides,
    }),
    env: () => ({
      ...S3_CREDENTIALS,
      ATTACHMENT_STORAGE: `s3://${bucket}/attachments`,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_FORCE_PATH_STYLE: 'true',
    }),
    pendingUploads: () => {
      const uploads = uploadsFolder(server, bucket);
      return existsSync(uploads) ? readdirSync(uploads).sort() : [];
    },
    async close() {
      if (closed) return;
      closed = true;
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Where s3rver keeps the parts of a bucket's unfinished multipart uploads, a folder per upload id. */
function uploadsFolder(server: S3rver, bucket: string): string {
  return server.store.getResourcePath(bucket, undefined, 'uploads');
}

/**
 * s3rver (3.7) has no AbortMultipartUpload: `DELETE /bucket/key?uploadId=…` answers 405
 * MethodNotAllowed and the parts stay. Added here as S3 does it: the upload's parts are dropped
 * (204), an unknown upload is a 404 NoSuchUpload. It goes before s3rver's router, its last middleware.
 */
function addAbortMultipartUpload(server: S3rver): void {
  const abort = async (ctx: S3rverContext, next: () => Promise<void>) => {
    const uploadId = ctx.query.uploadId;
    if (ctx.method !== 'DELETE' || typeof uploadId !== 'string') return next();
    const bucket = ctx.path.split('/')[1] ?? '';
    const folder = join(uploadsFolder(server, bucket), uploadId);
    if (!/^[0-9a-f]+$/.test(uploadId) || !existsSync(folder)) {
      ctx.status = 404;
      ctx.type = 'application/xml';
      ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message></Error>`;
      return;
    }
    rmSync(folder, { recursive: true, force: true });
    ctx.status = 204;
  };
  server.middleware.splice(server.middleware.length - 1, 0, abort);
}

/** Every object the store holds (keys, sorted): to count them and find orphans, on either store. */
export async function storedObjects(files: AttachmentStore): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of files.list()) keys.push(object.key);
  return keys.sort();
}

/** The bytes of one stored object. */
export async function storedBytes(files: AttachmentStore, key: string): Promise<Buffer> {
  return Buffer.concat(await (await files.open(key)).toArray());
}
