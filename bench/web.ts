/**
 * The web app in headless Chromium against a big board (`npm run bench:web`; BENCH_ENGINE=sqlite
 * (default) or postgres): a 5,000-card board (50 lists × 100; labels, members, checklists and
 * comments on many cards), made through the API in-process, then served and measured:
 * - Get Board with Lists and Cards and Get Board Card Faces (what the page reads): server time and size;
 * - navigation to a usable board (first cards on screen), and how many card elements the page holds;
 * - scrolling a 1,000-card list: frame times;
 * - a card dragged across lists: from the drop to the server's answer and the card in place;
 * - a change in one browser visible in another: p50/p95 over 50 changes;
 * - the JavaScript the board page loads (gzipped);
 * - opening a card with 50 comments, 5 checklists of 20 items and 20 attachments: the dialog usable.
 * Prints one JSON object. Not a test: nothing is asserted.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Page } from '@playwright/test';
import { contextWithKey, launch } from '../test/support/browser.ts';
import { ROOT } from '../test/support/cli.ts';
import { bearer, buildTestApp } from '../test/support/harness.ts';
import { measureCardDialog } from './card-dialog.ts';
import { percentile } from './webhook-lag.ts';

const engine = process.env.BENCH_ENGINE === 'postgres' ? 'postgres' : 'sqlite';
const LISTS = Number(process.env.BENCH_LISTS ?? 50);
const PER_LIST = Number(process.env.BENCH_PER_LIST ?? 100);
const LONG_LIST = 1000;

declare const document: { querySelectorAll(selector: string): { length: number }; querySelector(selector: string): BrowserElement | null };
interface BrowserElement {
  textContent: string | null;
}

const t = await buildTestApp(engine);
const key = t.tenant.apiKey;
async function call<T = Record<string, { _id: string }>>(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown): Promise<T> {
  const res = await t.app.inject({ method, url, headers: bearer(key), ...(payload === undefined ? {} : { payload: payload as object }) });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json() as T;
}

/** Progress on stderr, so a run that stalls says where. */
const benchStart = Date.now();
const stage = (what: string) => process.stderr.write(`bench:web ${((Date.now() - benchStart) / 1000).toFixed(1)} s: ${what}\n`);

/** Lists seeded at once (each list's cards in order): the seeding is most of a run's time on PostgreSQL. */
const SEED_LISTS_AT_ONCE = 5;

const seedStart = Date.now();
const boardId = (await call('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Big board' })).board!._id;
const labels: string[] = [];
for (let i = 0; i < 8; i++)
  labels.push((await call('POST', `/api/v1/boards/${boardId}/labels`, { name: `Label ${i}`, color: `00000000000000000000000${i + 1}` })).label!._id);
const listIds: string[] = [];
for (let l = 0; l < LISTS; l++) listIds.push((await call('POST', '/api/v1/lists', { board: boardId, name: `List ${l + 1}`, position: 'bottom' })).list!._id);
async function seedList(l: number) {
  const listId = listIds[l] as string;
  for (let c = 0; c < PER_LIST; c++) {
    const n = l * PER_LIST + c;
    const cardId = (
      await call('POST', '/api/v1/cards', {
        list: listId,
        name: `Card ${n + 1}: a task with a name of some length`,
        position: 'bottom',
        ...(n % 7 === 0 ? { dueDate: new Date(Date.now() + (n % 3) * 86400_000 - 86400_000).toISOString() } : {}),
      })
    ).card!._id;
    if (n % 3 === 0) await call('POST', `/v2/cards/${cardId}/labels`, { labels: [labels[n % 8], labels[(n + 3) % 8]] });
    if (n % 4 === 0) await call('POST', `/v2/cards/${cardId}/members`, { members: [t.tenant.userId] });
    if (n % 5 === 0) {
      const checklistId = (await call('POST', `/api/v1/cards/${cardId}/checklists`, { name: 'Steps' })).checklist!._id;
      for (let i = 0; i < 3; i++) await call('POST', `/api/v1/checklists/${checklistId}/items`, { name: `Step ${i + 1}` });
    }
    if (n % 6 === 0) await call('POST', `/api/v1/cards/${cardId}/comments`, { content: 'A comment on this card' });
  }
}
for (let l = 0; l < LISTS; l += SEED_LISTS_AT_ONCE) {
  await Promise.all(Array.from({ length: Math.min(SEED_LISTS_AT_ONCE, LISTS - l) }, (_, i) => seedList(l + i)));
  stage(`seeded ${Math.min(l + SEED_LISTS_AT_ONCE, LISTS)} of ${LISTS} lists`);
}
const longBoard = (await call('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Long list' })).board!._id;
const longList = (await call('POST', '/api/v1/lists', { board: longBoard, name: 'Long' })).list!._id;
for (let c = 0; c < LONG_LIST; c++) await call('POST', '/api/v1/cards', { list: longList, name: `Long card ${c + 1}`, position: 'bottom' });
const seedSeconds = (Date.now() - seedStart) / 1000;

await t.app.listen({ port: 0, host: '127.0.0.1' });
const address = t.app.server.address();
const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

stage(`seeded in ${seedSeconds.toFixed(1)} s; reading the board`);

/** A board read over HTTP, uncompressed, 12 times: p50 and max of the last 10, the answer's size and cards. */
async function boardRead(path: string) {
  const times: number[] = [];
  let bytes = 0;
  let cards = 0;
  for (let i = 0; i < 12; i++) {
    const started = performance.now();
    const response = await fetch(`${base}${path}`, { headers: { ...bearer(key), 'Accept-Encoding': 'identity' } });
    const text = await response.text();
    if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${text.slice(0, 200)}`);
    times.push(performance.now() - started);
    bytes = text.length;
    cards = (JSON.parse(text) as { board: { lists: { cards: unknown[] }[] } }).board.lists.reduce((sum, list) => sum + list.cards.length, 0);
  }
  times.splice(0, 2); // warm-up
  times.sort((a, b) => a - b);
  return { p50Ms: round(percentile(times, 50)), maxMs: round(times.at(-1) ?? 0), bytes, cardsInAnswer: cards };
}
const round = (n: number) => Math.round(n * 10) / 10;
const getBoard = await boardRead(`/api/v1/boards/${boardId}`);
const getBoardCardFaces = await boardRead(`/api/v1/boards/${boardId}/card-faces`);
stage('board read; starting Chromium');

const browser = await launch();
const context = await contextWithKey(browser, base, key, { viewport: { width: 1440, height: 900 } });
await context.tracing.stop();
const page = await context.newPage();

/** A loaded machine can take long; a page that never shows a card says what it shows instead. */
const USABLE_WAIT_MS = 120_000;

async function usable(target: Page, url: string): Promise<number> {
  const started = performance.now();
  await target.goto(url, { waitUntil: 'commit', timeout: USABLE_WAIT_MS });
  try {
    await target.locator('[data-card-id]').first().waitFor({ timeout: USABLE_WAIT_MS });
  } catch (error) {
    const shown = await target
      .locator('body')
      .textContent()
      .then((text) => text ?? '')
      .catch(() => '(no page)');
    throw new Error(`no card on ${url} after ${USABLE_WAIT_MS / 1000} s; the page shows: ${shown.slice(0, 500)}`, { cause: error });
  }
  return performance.now() - started;
}
// First load (nothing cached), then reloads with the assets cached, each from a fresh page state.
const navigation: number[] = [await usable(page, `/boards/${boardId}`)];
for (let i = 0; i < 4; i++) {
  const fresh = await context.newPage();
  navigation.push(await usable(fresh, `/boards/${boardId}`));
  await fresh.close();
}
stage('navigation measured');
await page.waitForTimeout(2000); // the lists' further pages arrive
const cardElements = await page.evaluate(() => document.querySelectorAll('[data-card-id]').length);

// Scrolling the 1,000-card list: 40 px per frame for 240 frames.
const longPage = await context.newPage();
await longPage.goto(`/boards/${longBoard}`);
await longPage.locator('[data-card-id]').first().waitFor();
await longPage.waitForFunction(() => (document.querySelector('.list-count')?.textContent ?? '') === '1000');
// A string, not a function: tsx's transform would add helpers the page does not have.
const frames = (await longPage.evaluate(`new Promise((resolve) => {
  const scroller = document.querySelector('.list-cards');
  const times = [];
  let last = 0;
  const step = (time) => {
    if (last) times.push(time - last);
    last = time;
    scroller.scrollTop += 40;
    if (times.length < 240) requestAnimationFrame(step);
    else resolve(times);
  };
  requestAnimationFrame(step);
})`)) as number[];
frames.sort((a, b) => a - b);
await longPage.close();

// A card dragged across lists: from the drop to the server's answer and the card in its new list.
const drags: number[] = [];
for (let i = 0; i < 10; i++) {
  const source = page.locator(`[data-list-id="${listIds[0]}"] [data-card-id]`).first();
  const cardId = await source.getAttribute('data-card-id');
  const target = page.locator(`[data-list-id="${listIds[1]}"] .list-header`);
  const from = await source.boundingBox();
  const to = await target.boundingBox();
  if (!from || !to || !cardId) throw new Error('drag: nothing to drag');
  await page.mouse.move(from.x + 20, from.y + 10);
  await page.mouse.down();
  await page.mouse.move(from.x + 40, from.y + 30, { steps: 4 });
  await page.mouse.move(to.x + 40, to.y + 60, { steps: 8 });
  const answered = page.waitForResponse((response) => response.url().includes(`/cards/${cardId}/position`));
  const started = performance.now();
  await page.mouse.up();
  await answered;
  await page.locator(`[data-list-id="${listIds[1]}"] [data-card-id="${cardId}"]`).waitFor();
  drags.push(performance.now() - started);
}
drags.sort((a, b) => a - b);

stage('scroll and drags measured');
// A change in one browser (here: the API, as another browser's write is) seen in another.
const watcher = await context.newPage();
await watcher.goto(`/boards/${boardId}`);
await watcher.locator('[data-card-id]').first().waitFor();
await watcher.waitForTimeout(500);
const watchedCard = await watcher.locator(`[data-list-id="${listIds[2]}"] [data-card-id]`).first().getAttribute('data-card-id');
const live: number[] = [];
for (let i = 0; i < 50; i++) {
  const name = `Renamed live ${i}`;
  const started = performance.now();
  await fetch(`${base}/api/v1/cards/${watchedCard}`, {
    method: 'PATCH',
    headers: { ...bearer(key), 'Content-Type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  await watcher.locator(`[data-card-id="${watchedCard}"]`).filter({ hasText: name }).waitFor();
  live.push(performance.now() - started);
}
live.sort((a, b) => a - b);

// Opening a busy card: the dialog usable (bench/card-dialog.ts).
const cardDialog = await measureCardDialog({ call, base, key, teamId: t.tenant.teamId, context });

// First load: the scripts index.html names (the entry and what it preloads); the rest load later.
const dist = join(ROOT, 'web', 'dist');
const named = [...readFileSync(join(dist, 'index.html'), 'utf8').matchAll(/(?:src|href)="\/assets\/([^"]+\.js)"/g)].map((match) => match[1] as string);
const gzipOf = (files: string[]) => files.reduce((sum, file) => sum + gzipSync(readFileSync(join(dist, 'assets', file))).length, 0);
const allScripts = readdirSync(join(dist, 'assets')).filter((file) => file.endsWith('.js'));

console.log(
  JSON.stringify(
    {
      engine,
      cards: LISTS * PER_LIST,
      seedSeconds: round(seedSeconds),
      getBoard,
      getBoardCardFaces,
      navigationToUsableMs: {
        first: round(navigation[0] ?? 0),
        cachedP50: round(
          percentile(
            [...navigation.slice(1)].sort((a, b) => a - b),
            50,
          ),
        ),
      },
      cardElements,
      scroll1000: { frames: frames.length, p50Ms: round(percentile(frames, 50)), p95Ms: round(percentile(frames, 95)), maxMs: round(frames.at(-1) ?? 0) },
      dragAcrossListsMs: { p50: round(percentile(drags, 50)), max: round(drags.at(-1) ?? 0) },
      liveChangeMs: { n: live.length, p50: round(percentile(live, 50)), p95: round(percentile(live, 95)), max: round(live.at(-1) ?? 0) },
      javascriptGzipBytes: { firstLoad: gzipOf(named), all: gzipOf(allScripts) },
      cardDialogUsableMs: cardDialog,
    },
    null,
    2,
  ),
);
await browser.close();
await t.dispose();
process.exit(0);
