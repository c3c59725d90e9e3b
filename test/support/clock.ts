import type { Clock } from '../../src/domain/shared/clock.ts';

/** A clock the test moves by setting `at`: time-driven work (reminders, rules, recurrences) without sleeps. */
export function manualClock(at: number): Clock & { at: number } {
  return {
    at,
    now() {
      return this.at;
    },
  };
}
