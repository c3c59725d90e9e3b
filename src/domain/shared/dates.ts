import { ValidationError } from './errors.ts';

/**
 * A date of a request (the body field `field`) in the records' timestamp form: ISO 8601 UTC with
 * milliseconds, as `nowIso`. Null and undefined (clear, keep) pass through; a text that is no date is a 400.
 */
export function normaliseDate<Absent extends null | undefined>(value: string | Absent, field: string): string | Absent {
  if (value === undefined || value === null) return value;
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new ValidationError(`${field} is not a date`, [{ field: `body.${field}`, message: 'must be an ISO 8601 date-time' }]);
  return new Date(time).toISOString();
}
