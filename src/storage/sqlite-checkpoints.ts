/**
 * Checkpoints of a SQLite database in a thread of their own. A checkpoint copies the write-ahead
 * log back into the database file and syncs it: better-sqlite3 runs everything on the main thread,
 * so a checkpoint there (SQLite's own, every `wal_autocheckpoint` pages) stops every request while
 * it runs; under a steady stream of writes that is a stall about every second (measured in
 * docs/benchmarks.md; the decision is docs/decisions/0038-sqlite-checkpoint-thread.md).
 *
 * The thread starts once the log has grown past `startAtWalBytes`, so a database that is seldom
 * written (and every short-lived command) never starts one, then checkpoints every `everyMs`.
 * Its checkpoints are PASSIVE: they wait on nobody, and nobody waits on them. The main connection
 * keeps its own `wal_autocheckpoint` as the bound if the thread falls behind or fails: it then
 * finds the log mostly copied already. No library offers this for better-sqlite3, whose API is
 * synchronous; a worker thread with a second connection is the way its documentation gives for
 * work that must not block the event loop.
 */
import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/** What one checkpoint did: frames in the log, frames copied back (all of them: the writer starts the log over), busy. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

/** What the thread (src/storage/sqlite-checkpoint-worker.js) is given, asked and answers. */
export interface CheckpointWorkerData {
  file: string;
  everyMs: number;
}
export type CheckpointRequest = { type: 'checkpoint'; id: number } | { type: 'stop' };
export type CheckpointReply = { type: 'checkpointed'; id: number; result: CheckpointResult } | { type: 'failed'; id: number; message: string };

export interface BackgroundCheckpointOptions {
  /** The log's size at which the thread starts (default 8 MiB, about 2,000 pages). */
  startAtWalBytes?: number;
  /** How often the log's size is looked at until then (default 1 s). */
  watchMs?: number;
  /** How often the thread checkpoints once started (default 500 ms). */
  everyMs?: number;
  /** Told when the thread has started. */
  onStarted?: () => void;
  /** Told when the thread failed (the main connection's own checkpoints go on). */
  onFailed?: (error: Error) => void;
}

export interface BackgroundCheckpoints {
  /** Whether the thread has been started (and not stopped). */
  readonly running: boolean;
  /** Starts the thread if it is not running, checkpoints there now, and answers what that did. */
  checkpointNow(): Promise<CheckpointResult>;
  /** Stops watching and ends the thread (within 2 s, else it is terminated). */
  stop(): Promise<void>;
}

const DEFAULTS = { startAtWalBytes: 8 * 1024 * 1024, watchMs: 1000, everyMs: 500 };

/** How long `stop` waits for the thread to close its connection before terminating it. */
const STOP_BOUND_MS = 2000;

type Waiting = Map<number, { resolve: (result: CheckpointResult) => void; reject: (error: Error) => void }>;

/** A started thread: the checkpoints asked of it and not answered yet, and its end. */
interface Thread {
  worker: Worker;
  waiting: Waiting;
  exited: Promise<void>;
}

function failAll(waiting: Waiting, error: Error) {
  for (const { reject } of waiting.values()) reject(error);
  waiting.clear();
}

export function backgroundCheckpoints(file: string, options: BackgroundCheckpointOptions = {}): BackgroundCheckpoints {
  const { startAtWalBytes, watchMs, everyMs } = { ...DEFAULTS, ...options };
  let thread: Thread | undefined;
  let stopped = false;
  let nextId = 0;

  const start = (): Thread => {
    if (thread) return thread;
    clearInterval(watcher);
    const data: CheckpointWorkerData = { file, everyMs };
    // No loader of the parent (tsx in tests), and a small heap: the thread holds a connection and a
    // timer, nothing else.
    const worker = new Worker(new URL('./sqlite-checkpoint-worker.js', import.meta.url), {
      workerData: data,
      execArgv: [],
      resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 },
    });
    worker.unref();
    const waiting: Waiting = new Map();
    // this thread is no longer the one that runs (failed or ended)
    const gone = () => {
      if (thread?.worker === worker) thread = undefined;
    };
    worker.on('message', (reply: CheckpointReply) => {
      const request = waiting.get(reply.id);
      if (!request) return;
      waiting.delete(reply.id);
      if (reply.type === 'checkpointed') request.resolve(reply.result);
      else request.reject(new Error(`background checkpoint failed: ${reply.message}`));
    });
    worker.on('error', (error) => {
      // the thread ends with its uncaught error
      gone();
      failAll(waiting, error);
      options.onFailed?.(error);
    });
    const exited = new Promise<void>((resolve) =>
      worker.once('exit', () => {
        gone();
        failAll(waiting, new Error('the background checkpoint thread has stopped'));
        resolve();
      }),
    );
    thread = { worker, waiting, exited };
    options.onStarted?.();
    return thread;
  };

  const watcher = setInterval(() => {
    const wal = statSync(`${file}-wal`, { throwIfNoEntry: false });
    if (wal && wal.size >= startAtWalBytes) start();
  }, watchMs);
  watcher.unref();

  return {
    get running() {
      return thread !== undefined;
    },
    checkpointNow() {
      if (stopped) return Promise.reject(new Error('background checkpoints are stopped'));
      const { worker, waiting } = start();
      const id = nextId++;
      return new Promise<CheckpointResult>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker.postMessage({ type: 'checkpoint', id } satisfies CheckpointRequest);
      });
    },
    async stop() {
      stopped = true;
      clearInterval(watcher);
      if (!thread) return;
      const { worker, exited } = thread;
      worker.postMessage({ type: 'stop' } satisfies CheckpointRequest);
      // a thread that has not closed its connection by then is ended anyway
      const bound = setTimeout(() => void worker.terminate(), STOP_BOUND_MS);
      await exited;
      clearTimeout(bound);
    },
  };
}
