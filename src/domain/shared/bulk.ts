import { DomainError, type ErrorDetail, ValidationError } from './errors.ts';

/** The contract's cap on the items of one bulk request. */
export const MAX_BULK_ITEMS = 100;

/** Why one item of a bulk request cannot be done. */
export interface BulkFailure {
  index: number;
  /** The item's place in the body, e.g. `body.cards[3]` or `body.cardIds[3]`. */
  field: string;
  /** The error code the item would get alone: `not_found`, `validation_failed`, `forbidden`... */
  code: string;
  message: string;
}

/**
 * Checks every item of a bulk request before anything is written, and rejects the whole request
 * when any item fails, naming each failing index. The answer's status is the one every failure
 * shares (404 when all are out of reach, 403 when all are refused), else 400.
 */
export async function checkEachItem<T, R>(items: readonly T[], field: string, check: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  const failures: BulkFailure[] = [];
  for (const [index, item] of items.entries()) {
    try {
      results.push(await check(item, index));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      failures.push({ index, field: `${field}[${index}]`, code: error.code, message: error.message });
    }
  }
  if (failures.length) throw bulkError(failures);
  return results;
}

/** One error for a bulk request with failing items, as `checkEachItem` describes. */
export function bulkError(failures: readonly BulkFailure[]): DomainError {
  const details: ErrorDetail[] = failures.map((f) => ({ ...f }));
  const codes = new Set(failures.map((f) => f.code));
  const message = `${failures.length} of the request's items cannot be done; nothing was changed`;
  if (codes.size === 1 && codes.has('not_found')) return new DomainError(404, 'not_found', message, details);
  if (codes.size === 1 && codes.has('forbidden')) return new DomainError(403, 'forbidden', message, details);
  return new ValidationError(message, details);
}

/** Rejects a bulk request that lists one id twice (the second listing is the failing item). */
export function rejectRepeatedIds(ids: readonly string[], field: string): void {
  const failures = ids.flatMap((id, index) =>
    ids.indexOf(id) !== index ? [{ index, field: `${field}[${index}]`, code: 'validation_failed', message: `${id} is listed twice` }] : [],
  );
  if (failures.length) throw bulkError(failures);
}
