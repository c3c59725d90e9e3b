/**
 * When a recurring card's occurrences fall: an RFC 5545 rule (the `rrule` library) over the wall
 * clock of a time zone (Luxon, which reads the zone rules of the platform's ICU), as UTC instants.
 *
 * The rule runs in "floating" time: the start's wall-clock fields are given to rrule as if they were
 * UTC, so that "every day at 09:00" stays 09:00 on the wall across daylight-saving changes; each
 * occurrence's wall-clock time is then placed in the zone. A wall time the zone skips (02:30 on the
 * night clocks go forward) is moved forward by the gap (03:30); one the zone repeats (02:30 on the
 * night they go back) is the first of the two. Pure: no query.
 */
import { createRequire } from 'node:module';
import { luxon } from '../shared/luxon.ts';

type RRuleClass = typeof import('rrule')['RRule'];
let rruleClass: RRuleClass | undefined;

/** rrule, loaded on the first schedule read (docs/decisions/0042-load-on-first-use.md). */
function RRule(): RRuleClass {
  rruleClass ??= (createRequire(import.meta.url)('rrule') as typeof import('rrule')).RRule;
  return rruleClass;
}

/** A recurrence's schedule: the rule, its first wall-clock time and its zone. */
export interface Schedule {
  /** The RRULE's parts, without DTSTART: `FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10`. */
  rule: string;
  /** The first occurrence's wall-clock time in the zone: `2031-03-01T09:00`. */
  startsAt: string;
  /** An IANA zone: `Europe/Berlin`. */
  timeZone: string;
}

/** Why a schedule is not one, or undefined when it is (the field it is about, and the reason). */
export function scheduleProblem(schedule: Schedule): { field: string; message: string } | undefined {
  if (!luxon().DateTime.local().setZone(schedule.timeZone).isValid) return { field: 'timeZone', message: 'is not a known IANA time zone' };
  if (!luxon().DateTime.fromISO(schedule.startsAt, { zone: 'utc' }).isValid)
    return { field: 'startsAt', message: 'is not a local date and time like 2031-03-01T09:00' };
  try {
    const options = RRule().parseString(schedule.rule.replace(/^RRULE:/i, ''));
    if (options.freq === undefined) return { field: 'rule', message: 'needs a FREQ' };
    if (options.dtstart) return { field: 'rule', message: 'must not hold DTSTART: startsAt is the start' };
  } catch (error) {
    return { field: 'rule', message: `is not an RRULE: ${(error as Error).message}` };
  }
  return undefined;
}

function ruleOf(schedule: Schedule) {
  const start = luxon().DateTime.fromISO(schedule.startsAt, { zone: 'utc' });
  return new (RRule())({ ...RRule().parseString(schedule.rule.replace(/^RRULE:/i, '')), dtstart: start.toJSDate(), tzid: null });
}

/** The UTC instant of a floating occurrence (wall-clock fields carried as UTC) in the zone. */
function placed(floating: Date, timeZone: string): number {
  const wall = luxon().DateTime.fromJSDate(floating, { zone: 'utc' });
  const placedAt = luxon().DateTime.fromObject(
    { year: wall.year, month: wall.month, day: wall.day, hour: wall.hour, minute: wall.minute, second: wall.second },
    { zone: timeZone },
  );
  // a wall time the zone repeats: Luxon answers the later; the earlier is the one an hour before
  // showing the same wall time
  const before = placedAt.minus({ hours: 1 });
  return before.hour === placedAt.hour && before.minute === placedAt.minute && before.day === placedAt.day ? before.toMillis() : placedAt.toMillis();
}

/** The floating time (wall-clock fields as UTC) of an instant in the zone. */
function floatingOf(instant: number, timeZone: string): Date {
  const wall = luxon().DateTime.fromMillis(instant, { zone: timeZone });
  return new Date(Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second, wall.millisecond));
}

/**
 * The first occurrences strictly after `after` (epoch ms; null: from the start), at most `count`, as
 * epoch ms in ascending order. An occurrence is after `after` by its instant, not its wall time.
 */
export function occurrencesAfter(schedule: Schedule, after: number | null, count: number): number[] {
  const rule = ruleOf(schedule);
  const found: number[] = [];
  // a day back in wall time: the wall time of `after` may map to an instant a zone offset away
  let cursor: Date | null = after === null ? null : new Date(floatingOf(after, schedule.timeZone).getTime() - 86_400_000);
  for (let guard = 0; found.length < count && guard < count + 1000; guard++) {
    const next: Date | null = cursor === null ? rule.after(new Date(-8.64e15), true) : rule.after(cursor, false);
    if (!next) break;
    cursor = next;
    const instant = placed(next, schedule.timeZone);
    if (after === null || instant > after) {
      if (found.at(-1) !== instant) found.push(instant);
    }
  }
  return found;
}
