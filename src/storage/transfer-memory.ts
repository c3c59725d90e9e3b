/**
 * Attachment bytes pass through this process in chunks that each stream drops as soon as it passed
 * them on: live memory is bounded by the streams' buffers. What is not bounded is the dead chunks:
 * every socket or file read allocates a fresh buffer outside the JavaScript heap, and V8 collects
 * them only when its heap fills or tens of megabytes of them piled up, so a large transfer left
 * about its own size of dead chunks in the resident set. Collecting the young generation after
 * every few megabytes moved frees them while they are still young, and costs little
 * (docs/benchmarks.md, "Attachments"). See docs/decisions/0111-bounded-transfer-memory.md.
 */
import { pipeline, type Readable, Transform, type TransformCallback } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Attachment bytes moved by this process (every transfer together) between two collections. */
export const COLLECT_EVERY_BYTES = 2 * 1024 * 1024;

type Collector = () => void;

let collector: Collector | null | undefined;
let sinceCollection = 0;

/**
 * V8's own collector, asked for a young-generation (scavenge) collection only. Node hands it out
 * only under `--expose-gc`: the flag is set just long enough to make one context that has it, so
 * no other code sees a `gc` global. Null where the runtime refuses (then nothing is collected early).
 */
function youngCollector(): Collector | null {
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as (options: { type: 'minor'; execution: 'sync' }) => void;
    setFlagsFromString('--no-expose-gc');
    if (typeof gc !== 'function') return null;
    return () => gc({ type: 'minor', execution: 'sync' });
  } catch {
    return null;
  }
}

/** Counts `bytes` of attachment moved through this process; collects the dead chunks every COLLECT_EVERY_BYTES. */
export function noteTransferred(bytes: number): void {
  sinceCollection += bytes;
  if (sinceCollection < COLLECT_EVERY_BYTES) return;
  sinceCollection = 0;
  if (collector === undefined) collector = youngCollector();
  collector?.();
}

/** A pass-through that counts what flows through it (a download's bytes) with `noteTransferred`. */
export class Counted extends Transform {
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    noteTransferred(chunk.length);
    done(null, chunk);
  }
}

/** `source` as read through a `Counted`; either failing or closing early ends both. */
export function counted(source: Readable): Readable {
  return pipeline(source, new Counted(), () => {});
}
