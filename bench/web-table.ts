/**
 * The board's table view in headless Chromium (`node --import tsx bench/web-table.ts` after
 * `npm run build:web`; BENCH_ENGINE=sqlite (default) or postgres): a 10,000-card board (100 lists ×
 * 100, every fifth card dated) made through the API in-process, then `?view=table` opened four times
 * from a fresh page:
 * - usable: the grid shows its first card's row;
 * - all rows: the grid counts every card (the lists' further pages read);
 * then, on the last page, the grid scrolled 60 px a frame for 300 frames: the frame times.
 * Prints one JSON object. Not a test.
 */
import { bearer, buildTestApp } from '../test/support/harness.ts';
import { servedInBrowser } from './served-browser.ts';
import { percentile } from './webhook-lag.ts';

declare const document: { querySelector(selector: string): { getAttribute(name: string): string | null } | null };

const engine = process.env.BENCH_ENGINE === 'postgres' ? 'postgres' : 'sqlite';
const LISTS = 100;
const PER_LIST = 100;
const CARDS = LISTS * PER_LIST;

const t = await buildTestApp(engine);
const key = t.tenant.apiKey;
async function call<T = Record<string, { _id: string }>>(method: 'GET' | 'POST', url: string, payload?: unknown): Promise<T> {
  const res = await t.app.inject({ method, url, headers: bearer(key), ...(payload === undefined ? {} : { payload: payload as object }) });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json() as T;
}
const stage = (what: string) => process.stderr.write(`bench:table ${what}\n`);

const boardId = (await call('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Big board' })).board!._id;
const listIds: string[] = [];
for (let l = 0; l < LISTS; l++) listIds.push((await call('POST', '/api/v1/lists', { board: boardId, name: `List ${l + 1}`, position: 'bottom' })).list!._id);
await Promise.all(
  listIds.map(async (listId, l) => {
    for (let c = 0; c < PER_LIST; c++) {
      const n = l * PER_LIST + c;
      await call('POST', '/api/v1/cards', {
        list: listId,
        name: `Card ${n + 1}: a task with a name of some length`,
        position: 'bottom',
        ...(n % 5 === 0 ? { dueDate: new Date(Date.UTC(2031, 0, 1 + (n % 28), 9)).toISOString() } : {}),
      });
    }
  }),
);
stage(`seeded ${CARDS} cards`);

const { browser, context } = await servedInBrowser(t.app, key);

const usable: number[] = [];
const whole: number[] = [];
let frames: number[] = [];
for (let i = 0; i < 4; i++) {
  const page = await context.newPage();
  const started = performance.now();
  await page.goto(`/boards/${boardId}?view=table`, { waitUntil: 'commit' });
  await page.locator('.table-scroller [role="row"][aria-rowindex="2"]').waitFor({ timeout: 120_000 });
  usable.push(performance.now() - started);
  await page.waitForFunction((count) => document.querySelector('.table-scroller')?.getAttribute('aria-rowcount') === String(count + 1), CARDS, {
    timeout: 120_000,
    polling: 20,
  });
  whole.push(performance.now() - started);
  if (i === 3) {
    // A string, not a function: tsx's transform would add helpers the page does not have.
    frames = (await page.evaluate(`new Promise((resolve) => {
      const scroller = document.querySelector('.table-scroller');
      const times = [];
      let last = 0;
      const step = (time) => {
        if (last) times.push(time - last);
        last = time;
        scroller.scrollTop += 60;
        if (times.length < 300) requestAnimationFrame(step);
        else resolve(times);
      };
      requestAnimationFrame(step);
    })`)) as number[];
  }
  await page.close();
}

const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { first: Math.round(values[0] ?? 0), p50: Math.round(percentile(sorted.slice(1), 50)), max: Math.round(sorted.at(-1) ?? 0) };
};
const sortedFrames = [...frames].sort((a, b) => a - b);
const round = (value: number) => Math.round(value * 10) / 10;
console.log(
  JSON.stringify(
    {
      engine,
      cards: CARDS,
      tableUsableMs: stats(usable),
      tableAllRowsMs: stats(whole),
      scroll: {
        frames: frames.length,
        p50Ms: round(percentile(sortedFrames, 50)),
        p95Ms: round(percentile(sortedFrames, 95)),
        maxMs: round(sortedFrames.at(-1) ?? 0),
        over50Ms: frames.filter((frame) => frame > 50).length,
      },
    },
    null,
    2,
  ),
);
await browser.close();
await t.dispose();
process.exit(0);
