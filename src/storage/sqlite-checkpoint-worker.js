// @ts-check
/**
 * The thread that copies a SQLite database's write-ahead log back into the database file
 * (src/storage/sqlite-checkpoints.ts): its own connection, PASSIVE checkpoints only, so it never
 * waits on, nor makes wait, the server's reads and writes on the main thread.
 *
 * Plain JavaScript, type-checked through JSDoc: a thread that loads TypeScript loads Node's type
 * stripper too, 10 of the 25 MB such a thread costs (measured with `process.memoryUsage().rss`).
 */
import { parentPort, workerData } from 'node:worker_threads';
import SqliteDatabase from 'better-sqlite3';

/** @typedef {import('./sqlite-checkpoints.ts').CheckpointResult} CheckpointResult */
/** @typedef {import('./sqlite-checkpoints.ts').CheckpointRequest} CheckpointRequest */
/** @typedef {import('./sqlite-checkpoints.ts').CheckpointReply} CheckpointReply */
/** @typedef {import('./sqlite-checkpoints.ts').CheckpointWorkerData} CheckpointWorkerData */

/** Tries a few times when the writer committed meanwhile: a log copied whole lets the next write start it over. */
const TRIES = 4;

if (!parentPort) throw new Error('sqlite-checkpoint-worker.js runs as a worker thread (src/storage/sqlite-checkpoints.ts)');
const port = parentPort;
const { file, everyMs } = /** @type {CheckpointWorkerData} */ (workerData);
const sqlite = new SqliteDatabase(file, { fileMustExist: true });

/** @returns {CheckpointResult} */
const checkpoint = () => {
  /** @type {CheckpointResult} */
  let result = { busy: 0, log: 0, checkpointed: 0 };
  for (let i = 0; i < TRIES; i++) {
    result = /** @type {CheckpointResult[]} */ (sqlite.pragma('wal_checkpoint(PASSIVE)'))[0] ?? result;
    if (result.busy || result.checkpointed >= result.log) break;
  }
  return result;
};

const timer = setInterval(() => {
  try {
    checkpoint();
  } catch {
    // the main thread's own checkpoints (wal_autocheckpoint) still bound the log
  }
}, everyMs);

/** @param {CheckpointReply} reply */
const reply = (reply) => port.postMessage(reply);

port.on('message', (/** @type {CheckpointRequest} */ request) => {
  if (request.type === 'stop') {
    clearInterval(timer);
    sqlite.close();
    port.close();
    return;
  }
  try {
    reply({ type: 'checkpointed', id: request.id, result: checkpoint() });
  } catch (error) {
    reply({ type: 'failed', id: request.id, message: error instanceof Error ? error.message : String(error) });
  }
});
