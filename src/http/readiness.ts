/**
 * What `/readyz` checks: everything this instance needs to serve, each bounded, all in parallel,
 * so a load balancer gets an answer (and the reason) in time even when a dependency hangs.
 */
import { existsSync } from 'node:fs';
import { sql } from 'kysely';
import type { RateLimiter } from '../ratelimit/limiter.ts';
import type { AttachmentStore } from '../storage/attachment-store.ts';
import { databaseFileOf, parseDatabaseUrl } from '../storage/database-url.ts';
import type { StorageConnection } from '../storage/open.ts';

/** The longest any check may take: the whole answer comes within 2 s even on a busy host (first request, event-loop lag). */
export const CHECK_TIMEOUT_MS = 1000;

export interface CheckResult {
  status: 'ok' | 'failed';
  /** Why it failed, in a few words. */
  message?: string;
  durationMs: number;
}

export interface Readiness {
  /** `degraded`: serving, with a fallback standing in (Redis down: rate limits in the database). */
  status: 'ready' | 'degraded' | 'not ready';
  checks: { database: CheckResult; uploadDir?: CheckResult; bucket?: CheckResult; databaseFile?: CheckResult; redis?: CheckResult };
}

export interface ReadinessSources {
  storage: StorageConnection;
  /** The attachment store: its folder is writable (`uploadDir`), or its bucket answers (`bucket`). */
  attachments: AttachmentStore;
  rateLimiter: RateLimiter | null;
}

function timedOut(ms: number): Promise<never> {
  return new Promise((_, reject) => {
    setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms).unref();
  });
}

async function check(probe: () => Promise<unknown>, timeoutMs: number): Promise<CheckResult> {
  const started = performance.now();
  const durationMs = () => Math.round(performance.now() - started);
  try {
    await Promise.race([probe(), timedOut(timeoutMs)]);
    return { status: 'ok', durationMs: durationMs() };
  } catch (error) {
    const message = (error as Error | null)?.message?.split('\n')[0] || String(error);
    return { status: 'failed', message, durationMs: durationMs() };
  }
}

export async function checkReadiness(sources: ReadinessSources, timeoutMs = CHECK_TIMEOUT_MS): Promise<Readiness> {
  const { storage, attachments, rateLimiter } = sources;
  const probeStore = () => attachments.check();
  const bucket = attachments.description.startsWith('s3:');
  const probes: Record<keyof Readiness['checks'], (() => Promise<unknown>) | undefined> = {
    database: () => sql`select 1`.execute(storage.db),
    uploadDir: bucket ? undefined : probeStore,
    bucket: bucket ? probeStore : undefined,
    databaseFile: undefined,
    redis: undefined,
  };
  const location = databaseFileOf(parseDatabaseUrl(storage.description));
  if (location !== undefined) {
    // Deleted under a running server, SQLite goes on writing to a file no restart will find.
    probes.databaseFile = async () => {
      if (!existsSync(location)) throw new Error(`${location} is missing`);
    };
  }
  const ping = rateLimiter?.ping?.bind(rateLimiter);
  if (ping) probes.redis = ping;

  const run = Object.entries(probes).filter((entry): entry is [string, () => Promise<unknown>] => entry[1] !== undefined);
  const results = await Promise.all(run.map(([, probe]) => check(probe, timeoutMs)));
  const checks = Object.fromEntries(run.map(([name], i) => [name, results[i]])) as Readiness['checks'];
  const failed = run.map(([name]) => name).filter((name) => checks[name as keyof Readiness['checks']]?.status === 'failed');
  // Without Redis the database takes over the rate limits: still serving.
  const status = failed.length === 0 ? 'ready' : failed.every((name) => name === 'redis') ? 'degraded' : 'not ready';
  return { status, checks };
}
