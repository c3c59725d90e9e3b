/**
 * What a bench server child (bench/serve-*.ts) tells the parent (bench/run.ts) over the IPC channel,
 * and the helper every child uses to serve and to stop with its parent.
 */
import type { FastifyInstance } from 'fastify';

/** Which limiter a bench server runs with: none, the database one on SQLite, or Redis. */
export const LIMITER_MODES = ['off', 'sqlite', 'redis'] as const;
export type LimiterMode = (typeof LIMITER_MODES)[number];

export function isLimiterMode(mode: string): mode is LimiterMode {
  return (LIMITER_MODES as readonly string[]).includes(mode);
}

/** One request to load-test, as autocannon sends it. */
export interface Target {
  /** The row label: the contract's operation name and route. */
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  /** When set, connection i sends every request to `paths[i % paths.length]` (then `path` is the first). */
  paths?: string[];
  headers?: Record<string, string>;
  body?: string;
}

export type ChildMessage = { type: 'ready'; port: number; targets: Target[]; description: string } | { type: 'failed'; message: string };

function send(message: ChildMessage) {
  if (process.send) process.send(message);
  else console.log(JSON.stringify(message));
}

/**
 * Listens on a free port of 127.0.0.1, reports it, and stops when the parent says so (SIGTERM),
 * or goes away (the IPC channel closes), so no server outlives a benchmark.
 */
export async function serve(app: FastifyInstance, targets: Target[], description: string, cleanup: () => void | Promise<void> = () => {}): Promise<void> {
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    const force = setTimeout(() => process.exit(1), 5000);
    force.unref();
    try {
      await app.close();
      await cleanup();
    } finally {
      process.exit(0);
    }
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.once('disconnect', stop);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('the server has no TCP address');
  send({ type: 'ready', port: address.port, targets, description });
}

/** Reports a setup failure to the parent with a readable message, then exits. */
export function failed(error: unknown): never {
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  send({ type: 'failed', message });
  process.exit(1);
}
