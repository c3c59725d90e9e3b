import { formatDate, formatList } from '../../i18n/messages.ts';
import { recurrencesText as s } from './strings.ts';

/**
 * A recurrence's schedule as the editor holds it, and the RFC 5545 rule it stands for (the parts the
 * API takes, without DTSTART: the first one is `startsAt`). Only the shapes the editor makes are read
 * back; any other rule (made through the API) is kept as it is and said as the rule itself.
 */

export const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export type Frequency = 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY';
export const NTHS = ['first', 'second', 'third', 'fourth', 'last'] as const;
export type Nth = (typeof NTHS)[number];
const NTH_NUMBER: Record<Nth, number> = { first: 1, second: 2, third: 3, fourth: 4, last: -1 };

export interface ScheduleDraft {
  frequency: Frequency;
  interval: number;
  /** WEEKLY: the days it falls on. */
  days: Weekday[];
  /** MONTHLY: on a day of the month, or on the nth weekday ("the last Friday"). */
  monthly: 'day' | 'weekday';
  dayOfMonth: number;
  nth: Nth;
  weekday: Weekday;
  ends: 'never' | 'until' | 'count';
  /** The last date (yyyy-mm-dd, on the zone's calendar). */
  until: string;
  count: number;
}

/** The weekday (MO…SU) of a local date-time `2031-03-03T09:00`. */
export function weekdayOf(startsAt: string): Weekday {
  const day = new Date(`${startsAt.slice(0, 10)}T00:00:00Z`).getUTCDay();
  return WEEKDAYS[(day + 6) % 7] as Weekday;
}

export function draftFor(startsAt: string): ScheduleDraft {
  const day = Number(startsAt.slice(8, 10)) || 1;
  return {
    frequency: 'WEEKLY',
    interval: 1,
    days: [weekdayOf(startsAt)],
    monthly: 'day',
    dayOfMonth: day,
    nth: 'last',
    weekday: weekdayOf(startsAt),
    ends: 'never',
    until: '',
    count: 10,
  };
}

export function toRrule(draft: ScheduleDraft): string {
  const parts = [`FREQ=${draft.frequency}`];
  if (draft.interval > 1) parts.push(`INTERVAL=${draft.interval}`);
  if (draft.frequency === 'WEEKLY') parts.push(`BYDAY=${WEEKDAYS.filter((day) => draft.days.includes(day)).join(',')}`);
  if (draft.frequency === 'MONTHLY') parts.push(draft.monthly === 'day' ? `BYMONTHDAY=${draft.dayOfMonth}` : `BYDAY=${NTH_NUMBER[draft.nth]}${draft.weekday}`);
  // the rule runs on the zone's wall clock, so the last day ends at its midnight on that clock
  if (draft.ends === 'until' && draft.until) parts.push(`UNTIL=${draft.until.replaceAll('-', '')}T235959Z`);
  if (draft.ends === 'count') parts.push(`COUNT=${draft.count}`);
  return parts.join(';');
}

/** The editor's draft of a rule it made, or null for any other rule. */
export function fromRrule(rule: string, startsAt: string): ScheduleDraft | null {
  const draft = draftFor(startsAt);
  const parts = new Map(
    rule
      .replace(/^RRULE:/i, '')
      .split(';')
      .map((part) => part.split('=') as [string, string]),
  );
  const frequency = parts.get('FREQ');
  if (frequency !== 'DAILY' && frequency !== 'WEEKLY' && frequency !== 'MONTHLY' && frequency !== 'YEARLY') return null;
  draft.frequency = frequency;
  for (const [key, value] of parts) {
    if (key === 'FREQ') continue;
    if (key === 'INTERVAL' && /^\d+$/.test(value)) draft.interval = Number(value);
    else if (key === 'COUNT' && /^\d+$/.test(value)) {
      draft.ends = 'count';
      draft.count = Number(value);
    } else if (key === 'UNTIL' && /^\d{8}/.test(value)) {
      draft.ends = 'until';
      draft.until = `${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6, 8)}`;
    } else if (key === 'BYDAY' && frequency === 'WEEKLY' && value.split(',').every((day) => (WEEKDAYS as readonly string[]).includes(day)))
      draft.days = value.split(',') as Weekday[];
    else if (key === 'BYDAY' && frequency === 'MONTHLY' && /^(-1|[1-4])(MO|TU|WE|TH|FR|SA|SU)$/.test(value)) {
      draft.monthly = 'weekday';
      const n = Number(value.slice(0, -2));
      draft.nth = NTHS.find((nth) => NTH_NUMBER[nth] === n) ?? 'last';
      draft.weekday = value.slice(-2) as Weekday;
    } else if (key === 'BYMONTHDAY' && frequency === 'MONTHLY' && /^\d+$/.test(value)) {
      draft.monthly = 'day';
      draft.dayOfMonth = Number(value);
    } else return null;
  }
  return draft;
}

/** A weekday's name in the interface's language (2024-01-01 was a Monday). */
export const weekdayName = (day: Weekday, style: 'long' | 'short' = 'long') =>
  formatDate(new Date(Date.UTC(2024, 0, 1 + WEEKDAYS.indexOf(day))), { weekday: style, timeZone: 'UTC' });

/** "Every week on Monday and Wednesday at 9:00 AM (Europe/Berlin), 5 times in all". */
export function scheduleWords(rule: string, startsAt: string, timeZone: string): string {
  const draft = fromRrule(rule, startsAt);
  let words: string;
  if (!draft) words = s.custom(rule);
  else if (draft.frequency === 'DAILY') words = s.daysOf(draft.interval);
  else if (draft.frequency === 'WEEKLY') words = s.weeksOn(draft.interval, formatList(draft.days.map((day) => weekdayName(day))));
  else if (draft.frequency === 'MONTHLY')
    words =
      draft.monthly === 'day' ? s.monthsOnDay(draft.interval, draft.dayOfMonth) : s.monthsOnThe(draft.interval, s.nth[draft.nth], weekdayName(draft.weekday));
  else words = s.yearsOf(draft.interval);
  const time = formatDate(new Date(`${startsAt}:00Z`), { timeStyle: 'short', timeZone: 'UTC' });
  words = s.atTime(words, time, timeZone);
  if (draft?.ends === 'until' && draft.until) return s.until(words, formatDate(new Date(`${draft.until}T00:00:00Z`), { dateStyle: 'medium', timeZone: 'UTC' }));
  if (draft?.ends === 'count') return s.times(words, draft.count);
  return words;
}

/** An occurrence on the zone's clock: "Monday, March 3, 2031 at 9:00 AM". */
export const occurrenceWords = (iso: string, timeZone: string) => formatDate(iso, { dateStyle: 'full', timeStyle: 'short', timeZone });

/** The browser's own zone, and the zones it knows (the API takes any IANA zone). */
export const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
export const knownZones = (): string[] => {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return zones.includes('UTC') ? zones : ['UTC', ...zones];
};
