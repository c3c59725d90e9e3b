/**
 * Conditional writes (`If-Match`): the request names the `__v` it expects of the record its path
 * names, and the write goes ahead only when the record is still at that revision. The HTTP layer
 * puts the expectation on the `Caller` (`expectedVersion`); the domain compares it with the row it
 * has just read under the row's lock, inside the write's own transaction, so no other change can
 * come between the comparison and the write. A mismatch throws, which rolls the whole write back.
 */
import type { Caller, VersionedKind } from './caller.ts';
import { DomainError } from './errors.ts';

export class PreconditionFailedError extends DomainError {
  constructor(kind: VersionedKind, current: number) {
    super(412, 'precondition_failed', `The ${kind} has changed: it is at __v ${current}, not at the revision If-Match names; nothing was changed`, [
      { field: 'headers.if-match', message: `the ${kind} is at __v ${current}`, __v: current },
    ]);
  }
}

/** Targets already compared in a transaction: a second read of the same row there may see this write's own change. */
const compared = new WeakMap<object, Set<string>>();

/** Whether the request's `If-Match` is about this record. */
export function isExpected(caller: Caller, kind: VersionedKind, id: string): boolean {
  const expected = caller.expectedVersion;
  return expected !== undefined && expected.kind === kind && expected.id === id;
}

/**
 * Compares the record's revision before this write (`current`, read under its lock in `trx`) with
 * the request's `If-Match`, once per transaction; a mismatch is a 412 that names the current `__v`.
 */
export function requireExpectedVersion(trx: object, caller: Caller, kind: VersionedKind, id: string, current: number): void {
  if (!isExpected(caller, kind, id)) return;
  let done = compared.get(trx);
  if (!done) compared.set(trx, (done = new Set()));
  const key = `${kind}:${id}`;
  if (done.has(key)) return;
  done.add(key);
  if (!caller.expectedVersion!.versions.includes(Number(current))) throw new PreconditionFailedError(kind, Number(current));
}
