/**
 * The board's calendar in headless Chromium (`node --import tsx bench/web-calendar.ts` after
 * `npm run build:web`; BENCH_ENGINE=sqlite (default) or postgres): a 5,000-card board (50 lists ×
 * 100) of which 2,000 cards are due this month, made through the API in-process, then the month
 * opened (`?view=calendar`), five times from a fresh page:
 * - usable: the grid shows its first card;
 * - whole: every dated card is on its day (the lists' further pages read and placed).
 * Also the board itself (for comparison), a week view, and the timeline's six weeks. Prints one JSON object. Not a test.
 */
import type { Page } from '@playwright/test';
import { bearer, buildTestApp } from '../test/support/harness.ts';
import { servedInBrowser } from './served-browser.ts';
import { percentile } from './webhook-lag.ts';

const engine = process.env.BENCH_ENGINE === 'postgres' ? 'postgres' : 'sqlite';
const LISTS = 50;
const PER_LIST = 100;
/** Two cards in five are due this month. */
const DATED = (n: number) => n % 5 < 2;

declare const document: { querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }> };

const t = await buildTestApp(engine);
const key = t.tenant.apiKey;
async function call<T = Record<string, { _id: string }>>(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown): Promise<T> {
  const res = await t.app.inject({ method, url, headers: bearer(key), ...(payload === undefined ? {} : { payload: payload as object }) });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json() as T;
}
const stage = (what: string) => process.stderr.write(`bench:calendar ${what}\n`);

const now = new Date();
const dueThisMonth = (n: number) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1 + (n % 28), 8 + (n % 9), 0)).toISOString();
const boardId = (await call('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Big board' })).board!._id;
const listIds: string[] = [];
for (let l = 0; l < LISTS; l++) listIds.push((await call('POST', '/api/v1/lists', { board: boardId, name: `List ${l + 1}`, position: 'bottom' })).list!._id);
let dated = 0;
await Promise.all(
  listIds.map(async (listId, l) => {
    for (let c = 0; c < PER_LIST; c++) {
      const n = l * PER_LIST + c;
      if (DATED(n)) dated++;
      await call('POST', '/api/v1/cards', {
        list: listId,
        name: `Card ${n + 1}: a task with a name of some length`,
        position: 'bottom',
        ...(DATED(n) ? { dueDate: dueThisMonth(n) } : {}),
      });
    }
  }),
);
stage(`seeded ${LISTS * PER_LIST} cards, ${dated} due this month`);

const { browser, context } = await servedInBrowser(t.app, key);

/** The dated cards the grid counts, from each day's name ("…, 12 cards"). */
const placed = (page: Page) =>
  page.evaluate(() =>
    Array.from(document.querySelectorAll('.calendar-day > .visually-hidden')).reduce(
      (sum, day) => sum + Number(/(\d+) cards?$/.exec(day.textContent ?? '')?.[1] ?? 0),
      0,
    ),
  );

async function open(url: string, selector: string, whole?: (page: Page) => Promise<boolean>) {
  const page = await context.newPage();
  const started = performance.now();
  await page.goto(url, { waitUntil: 'commit' });
  await page.locator(selector).first().waitFor({ timeout: 120_000 });
  const usable = performance.now() - started;
  let complete = usable;
  if (whole) {
    while (!(await whole(page))) await page.waitForTimeout(20);
    complete = performance.now() - started;
  }
  await page.close();
  return { usable, complete };
}

// the board itself in the same run, so a loaded machine's figures can still be compared
const board = [];
for (let i = 0; i < 3; i++) board.push(await open(`/boards/${boardId}`, '[data-card-id]'));
const month: { usable: number; complete: number }[] = [];
for (let i = 0; i < 5; i++)
  month.push(await open(`/boards/${boardId}?view=calendar`, '.calendar-grid [data-card-id]', async (page) => (await placed(page)) >= dated));
const week = [];
for (let i = 0; i < 3; i++) week.push(await open(`/boards/${boardId}?view=calendar&range=week`, '.calendar-grid [data-card-id]'));
const timeline = [];
for (let i = 0; i < 3; i++) timeline.push(await open(`/boards/${boardId}?view=timeline`, '.timeline-bar'));

const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { first: Math.round(values[0] ?? 0), p50: Math.round(percentile(sorted.slice(1), 50)), max: Math.round(sorted.at(-1) ?? 0) };
};
console.log(
  JSON.stringify(
    {
      engine,
      cards: LISTS * PER_LIST,
      dated,
      boardUsableMs: stats(board.map((one) => one.usable)),
      calendarMonthMs: { usable: stats(month.map((one) => one.usable)), whole: stats(month.map((one) => one.complete)) },
      calendarWeekUsableMs: stats(week.map((one) => one.usable)),
      timelineUsableMs: stats(timeline.map((one) => one.usable)),
    },
    null,
    2,
  ),
);
await browser.close();
await t.dispose();
process.exit(0);
