/** Dates in words on faces ("tomorrow", "3 days overdue"), in the page's language; the exact time goes on hover and to screen readers. */
import { currentLocale } from '../i18n/messages.ts';

const DAY_MS = 86_400_000;

function startOfDay(at: number): number {
  const day = new Date(at);
  day.setHours(0, 0, 0, 0);
  return day.getTime();
}

/** Whole calendar days from today to `iso` (negative: past), in the person's time zone. */
export function daysFromToday(iso: string, now: number): number {
  return Math.round((startOfDay(Date.parse(iso)) - startOfDay(now)) / DAY_MS);
}

/** "today", "tomorrow", "in 3 days", "yesterday"; beyond a week, the date itself. */
export function dayInWords(iso: string, now: number, locale: string = currentLocale()): string {
  const days = daysFromToday(iso, now);
  if (Math.abs(days) <= 7) return new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }).format(days, 'day');
  const date = new Date(iso);
  const sameYear = date.getFullYear() === new Date(now).getFullYear();
  return date.toLocaleDateString(locale, sameYear ? { month: 'short', day: 'numeric' } : { year: 'numeric', month: 'short', day: 'numeric' });
}

/** The exact moment, for a title and for screen readers. */
export function exactTime(iso: string, locale: string = currentLocale()): string {
  return new Date(iso).toLocaleString(locale, { dateStyle: 'full', timeStyle: 'short' });
}
