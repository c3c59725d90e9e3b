/** Dates in words on faces ("tomorrow", "3 days overdue"), in the page's language and the person's time zone; the exact time goes on hover and to screen readers. */
import { currentTimeZone, formatDate, formatRelativeDays } from '../i18n/messages.ts';

const DAY_MS = 86_400_000;
const calendars = new Map<string, Intl.DateTimeFormat>();

/** The calendar day of `at` in `zone`, counted in days since 1970-01-01 (so two days subtract). */
export function dayNumber(at: number, zone: string = currentTimeZone()): number {
  let calendar = calendars.get(zone);
  if (!calendar) {
    calendar = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: 'numeric', day: 'numeric' });
    calendars.set(zone, calendar);
  }
  const parts = calendar.formatToParts(at);
  const part = (type: string) => Number(parts.find((one) => one.type === type)?.value);
  return Date.UTC(part('year'), part('month') - 1, part('day')) / DAY_MS;
}

/** Whole calendar days from today to `iso` (negative: past), in the person's time zone. */
export function daysFromToday(iso: string, now: number, zone?: string): number {
  return dayNumber(Date.parse(iso), zone) - dayNumber(now, zone);
}

/** "today", "tomorrow", "in 3 days", "yesterday"; beyond a week, the date itself. */
export function dayInWords(iso: string, now: number, locale?: string): string {
  const days = daysFromToday(iso, now);
  if (Math.abs(days) <= 7) return formatRelativeDays(days, locale);
  const sameYear = formatDate(iso, { year: 'numeric' }) === formatDate(new Date(now), { year: 'numeric' });
  return formatDate(iso, sameYear ? { month: 'short', day: 'numeric' } : { year: 'numeric', month: 'short', day: 'numeric' });
}

/** The exact moment, for a title and for screen readers. */
export function exactTime(iso: string): string {
  return formatDate(iso, { dateStyle: 'full', timeStyle: 'short' });
}
