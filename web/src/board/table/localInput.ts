import { parseAbsolute, parseDateTime, toCalendarDateTime } from '@internationalized/date';
import { currentTimeZone } from '../../i18n/messages.ts';

/**
 * A `datetime-local` input's value for an ISO date, on the wall clock of the person's time zone
 * (the account's, else the browser's), and back: the table's in-place date editor.
 */
export const toLocalInput = (iso: string | null): string => (iso ? toCalendarDateTime(parseAbsolute(iso, currentTimeZone())).toString().slice(0, 16) : '');
export const fromLocalInput = (value: string): string | null => (value ? parseDateTime(value).toDate(currentTimeZone()).toISOString() : null);
