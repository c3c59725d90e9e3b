import { ValidationError } from './errors.ts';

/**
 * An IANA time zone name as the runtime's time zone database spells it (`europe/berlin` →
 * `Europe/Berlin`, `UTC`), or a 400 naming the field: a zone no browser's `Intl` would know is refused
 * rather than stored.
 */
export function ianaTimeZone(name: string, field: string): string {
  try {
    // a name, not an offset (`+02:00`, which newer runtimes also take): offsets ignore summer time
    const known = /^[A-Za-z]/.test(name.trim()) ? new Intl.DateTimeFormat('en', { timeZone: name.trim() }).resolvedOptions().timeZone : '';
    if (known) return known;
  } catch {
    // RangeError: not a time zone
  }
  throw new ValidationError(`${field.replace(/^body\./, '')} is not a time zone`, [{ field, message: 'must be an IANA time zone, e.g. Europe/Berlin' }]);
}
