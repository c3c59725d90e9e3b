/** The part of s3rver (no types of its own) the tests use. */
declare module 's3rver' {
  /** The part of a request's Koa context that test/support/s3.ts reads and sets. */
  export interface S3rverContext {
    method: string;
    path: string;
    query: Record<string, string | string[] | undefined>;
    status: number;
    type: string;
    body: unknown;
  }
  export default class S3rver {
    constructor(options: { port?: number; address?: string; silent?: boolean; directory: string });
    /** Koa's middleware list; s3rver's router is the last. */
    middleware: ((ctx: S3rverContext, next: () => Promise<void>) => Promise<void>)[];
    /** Where s3rver keeps its buckets on disk. */
    store: { getResourcePath(bucket: string, key: string | undefined, resource: string): string };
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}
