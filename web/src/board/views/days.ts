/**
 * Calendar days of the board's views (calendar and timeline), in the person's time zone, over
 * `@internationalized/date`: which day a date falls on, the same time of day on another day, and
 * the dates a drop or a drag gives a card. Kept free of React and the DOM (the unit tests load it).
 */
import { type CalendarDate, parseAbsolute, parseDate, Time, toCalendarDateTime, toZoned } from '@internationalized/date';

/** A card's dates, as its face holds them (ISO instants or null). */
export interface Dates {
  startDate: string | null;
  dueDate: string | null;
}
/** What a write changes of a card's dates (a key left out is left alone). */
export type DatesChange = Partial<Dates>;
export type DateKey = keyof Dates;
export interface TimeOfDay {
  hour: number;
  minute: number;
}

const DAY_MS = 86_400_000;
const dayFormats = new Map<string, Intl.DateTimeFormat>();

const knownDays = new Map<string, string>();
/** Days remembered before the memo starts again (a big board's dates, a few times over). */
const KNOWN_DAYS = 50_000;

/**
 * The calendar day (`YYYY-MM-DD`) of an instant in `zone`. A board's views ask it of every dated card
 * on each change of the board, so the answers are remembered (formatting is the costly part).
 */
export function dayOf(iso: string, zone: string): string {
  const key = `${zone} ${iso}`;
  const known = knownDays.get(key);
  if (known) return known;
  if (knownDays.size >= KNOWN_DAYS) knownDays.clear();
  const day = formatDay(iso, zone);
  knownDays.set(key, day);
  return day;
}

function formatDay(iso: string, zone: string): string {
  let format = dayFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
    dayFormats.set(zone, format);
  }
  const parts = format.formatToParts(new Date(iso));
  const part = (type: string) => parts.find((one) => one.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** Whole days from day `from` to day `to` (negative: `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  const epoch = (day: string) => {
    const date = parseDate(day);
    return Date.UTC(date.year, date.month - 1, date.day) / DAY_MS;
  };
  return epoch(to) - epoch(from);
}

export const addDays = (day: string, days: number): string => parseDate(day).add({ days }).toString();

/** The instant `days` calendar days later at the same wall-clock time in `zone` (a day across a change of summer time is still one day). */
export const shiftDays = (iso: string, days: number, zone: string): string => parseAbsolute(iso, zone).add({ days }).toDate().toISOString();

/** The instant at `time` on `day` in `zone`. */
export const atTime = (day: string, time: TimeOfDay, zone: string): string =>
  toZoned(toCalendarDateTime(parseDate(day), new Time(time.hour, time.minute)), zone)
    .toDate()
    .toISOString();

export const isDay = (value: string | null): value is string => Boolean(value && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value)));
export const calendarDay = (day: string): CalendarDate => parseDate(day);

/**
 * A card dropped on a day of the calendar shown by one of its dates (`by`): that date goes to the
 * day at its time of day, and the other date moves as many days, so the card keeps its span. A card
 * without that date gets it at `time` (a due date the working day's end, a start its beginning);
 * should that put it on the wrong side of the other date, the other takes the same moment.
 */
export function datesOnDay(card: Dates, by: DateKey, day: string, zone: string, time: TimeOfDay): DatesChange {
  const other: DateKey = by === 'dueDate' ? 'startDate' : 'dueDate';
  const current = card[by];
  const otherDate = card[other];
  if (current) {
    const days = daysBetween(dayOf(current, zone), day);
    return days === 0 ? {} : moveDates(card, days, zone);
  }
  const value = atTime(day, time, zone);
  const change: DatesChange = { [by]: value };
  if (otherDate && (by === 'dueDate' ? Date.parse(value) < Date.parse(otherDate) : Date.parse(value) > Date.parse(otherDate))) change[other] = value;
  return change;
}

/** Both of a card's dates (those it has) moved `days` days, at their times of day. */
export function moveDates(card: Dates, days: number, zone: string): DatesChange {
  const change: DatesChange = {};
  if (days === 0) return change;
  if (card.startDate) change.startDate = shiftDays(card.startDate, days, zone);
  if (card.dueDate) change.dueDate = shiftDays(card.dueDate, days, zone);
  return change;
}

/**
 * One end of a card's span moved `days` days (the timeline's resize). An end is never dragged past
 * the other: it stops on the other's day, at the other's moment if its own time would cross it.
 */
export function resizeDates(card: Dates, end: DateKey, days: number, zone: string): DatesChange {
  const value = card[end];
  if (!value || days === 0) return {};
  const other = card[end === 'startDate' ? 'dueDate' : 'startDate'];
  let moved = shiftDays(value, days, zone);
  if (other) {
    const span = daysBetween(dayOf(end === 'startDate' ? moved : other, zone), dayOf(end === 'startDate' ? other : moved, zone));
    if (span < 0) moved = shiftDays(moved, end === 'startDate' ? span : -span, zone);
    if (end === 'startDate' ? Date.parse(moved) > Date.parse(other) : Date.parse(moved) < Date.parse(other)) moved = other;
  }
  return moved === value ? {} : { [end]: moved };
}
