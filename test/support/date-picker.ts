/**
 * The date and time picker (web/src/ui/DateTimePicker.tsx) as a person uses it: typing into its
 * segments in the locale's order, or choosing from its popover's quick picks and calendar.
 */
import type { Locator, Page } from '@playwright/test';

/** The picker's field: a group named by its label ("Due date"), one spin button per part of the moment. */
export const pickerField = (scope: Page | Locator, label: string) => scope.getByRole('group', { name: label, exact: true });

/**
 * Types a moment in an en-US page (month, day, year, hour, minute, AM/PM; each part moves on when
 * whole) and leaves the field with Tab twice (past its calendar button), which saves it.
 */
export async function typeMoment(page: Page, field: Locator, at: { month: number; day: number; year: number; hour: number; minute: number }) {
  await field.getByRole('spinbutton').first().click();
  const hour12 = at.hour % 12 === 0 ? 12 : at.hour % 12;
  const two = (n: number) => String(n).padStart(2, '0');
  await page.keyboard.type(`${two(at.month)}${two(at.day)}${at.year}${two(hour12)}${two(at.minute)}${at.hour < 12 ? 'A' : 'P'}`);
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
}

/** Opens the picker's popover from its calendar button; answers the popover's dialog (named as the field). */
export async function openPicker(page: Page, field: Locator, label: string) {
  await field.getByRole('button').click();
  const popover = page.getByRole('dialog', { name: label, exact: true });
  await popover.waitFor();
  return popover;
}

/** The calendar day (y-m-d) of `at` in an IANA time zone, and that day at a wall-clock time there as an ISO moment. */
export function dayIn(zone: string, at: Date): { year: number; month: number; day: number } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: 'numeric', day: 'numeric' }).formatToParts(at);
  const part = (type: string) => Number(parts.find((one) => one.type === type)?.value);
  return { year: part('year'), month: part('month'), day: part('day') };
}
export function wallClockIn(zone: string, day: { year: number; month: number; day: number }, hour: number, minute = 0): string {
  // the offset of the zone at that moment, found by formatting a first guess back in the zone
  const guess = Date.UTC(day.year, day.month - 1, day.day, hour, minute);
  const shown = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
  }).formatToParts(guess);
  const part = (type: string) => Number(shown.find((one) => one.type === type)?.value);
  const offset = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute')) - guess;
  return new Date(guess - offset).toISOString();
}
