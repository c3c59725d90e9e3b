import { formatDate } from '../i18n/messages.ts';

/** The times a day picked without one gets: a start at the start of the working day, a due date at its end. */
export const START_OF_DAY = { hour: 9, minute: 0 };
export const END_OF_DAY = { hour: 17, minute: 0 };

/** When something happened, in the person's words of time and time zone. */
export const when = (iso: string) => formatDate(iso, { dateStyle: 'medium', timeStyle: 'short' });
