/**
 * Lighthouse against the web app in Debian's Chromium (`npm run bench:lighthouse`): the sign-in page,
 * the boards page, a 60-card board and a 122-card Trello import, each with the desktop and the mobile
 * preset (simulated throttling), categories performance, accessibility and best practices. The app
 * is seeded in-process (SQLite) and served; Chromium runs with a persistent profile and a debugging
 * port, the sign-in goes through the page, and Lighthouse drives the same browser, so the signed-in
 * pages see the session cookie (Lighthouse's storage reset keeps cookies and local storage).
 * Each page and preset runs LIGHTHOUSE_RUNS times (default 3) and the median run counts. Prints one
 * JSON object; the median runs' full reports go to test-results/lighthouse/. Not a test: nothing is asserted.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import lighthouse, { desktopConfig, type Flags, type Result } from 'lighthouse';
import { CHROMIUM } from '../test/support/browser.ts';
import { ROOT } from '../test/support/cli.ts';
import { bearer, buildTestApp } from '../test/support/harness.ts';
import { givePassword, TEST_PASSWORD } from '../test/support/people.ts';
import { bigTrelloExport, importForm } from '../test/support/trello.ts';

const REPORTS = join(ROOT, 'test-results', 'lighthouse');
const CATEGORIES = ['performance', 'accessibility', 'best-practices'] as const;
const EMAIL = 'owner@acme.test';
/**
 * What Lighthouse clears before each page (cookies and local storage stay, so the session does): its
 * own list and IndexedDB, where the service worker's cache keeps its expiry records, so each page
 * loads as on a first visit.
 */
const CLEARED: NonNullable<Flags['clearStorageTypes']> = ['file_systems', 'shader_cache', 'service_workers', 'cache_storage', 'indexeddb'];

/** A loaded machine's runs differ widely: the median of a few is steadier. */
const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 3);
/** To see what a part of the page costs: URL patterns the page may not load (e.g. `*\/sw.js`, comma-separated). */
const BLOCKED = process.env.LIGHTHOUSE_BLOCK ? process.env.LIGHTHOUSE_BLOCK.split(',') : [];
/** Only these pages (names as in the output, comma-separated); all by default. */
const ONLY = process.env.LIGHTHOUSE_PAGES?.split(',');
/** Only these presets (`desktop`, `mobile`, comma-separated); both by default. */
const PRESETS = (process.env.LIGHTHOUSE_PRESETS?.split(',') ?? ['desktop', 'mobile']) as Preset[];

const benchStart = Date.now();
const stage = (what: string) => process.stderr.write(`bench:lighthouse ${((Date.now() - benchStart) / 1000).toFixed(1)} s: ${what}\n`);

const t = await buildTestApp('sqlite');
const key = t.tenant.apiKey;
async function call<T = Record<string, { _id: string }>>(method: 'GET' | 'POST', url: string, payload?: unknown): Promise<T> {
  const res = await t.app.inject({ method, url, headers: bearer(key), ...(payload === undefined ? {} : { payload: payload as object }) });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json() as T;
}
await givePassword(t.services, EMAIL);

// A 60-card board as a team keeps one: 4 lists of 15, with labels, a member, due dates and checklists on some cards.
const boardId = (await call('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Product launch' })).board!._id;
const labels: string[] = [];
for (const [i, name] of ['Design', 'Backend', 'Bug', 'Urgent'].entries())
  labels.push((await call('POST', `/api/v1/boards/${boardId}/labels`, { name, color: `00000000000000000000000${i + 1}` })).label!._id);
for (const [l, listName] of ['Backlog', 'To do', 'Doing', 'Done'].entries()) {
  const listId = (await call('POST', '/api/v1/lists', { board: boardId, name: listName, position: 'bottom' })).list!._id;
  for (let c = 0; c < 15; c++) {
    const n = l * 15 + c;
    const cardId = (
      await call('POST', '/api/v1/cards', {
        list: listId,
        name: `Task ${n + 1}: write down what the launch needs`,
        position: 'bottom',
        ...(n % 5 === 0 ? { dueDate: new Date(Date.now() + ((n % 3) - 1) * 86400_000).toISOString() } : {}),
      })
    ).card!._id;
    if (n % 2 === 0) await call('POST', `/v2/cards/${cardId}/labels`, { labels: [labels[n % 4]] });
    if (n % 3 === 0) await call('POST', `/v2/cards/${cardId}/members`, { members: [t.tenant.userId] });
    if (n % 4 === 0) {
      const checklistId = (await call('POST', `/api/v1/cards/${cardId}/checklists`, { name: 'Steps' })).checklist!._id;
      for (let i = 0; i < 3; i++) await call('POST', `/api/v1/checklists/${checklistId}/items`, { name: `Step ${i + 1}` });
    }
    if (n % 6 === 0) await call('POST', `/api/v1/cards/${cardId}/comments`, { content: 'A comment on this task' });
  }
}

// The 122-card Trello export, through the import a person uses.
const form = importForm(JSON.stringify(bigTrelloExport(122)));
const started = await t.app.inject({
  method: 'POST',
  url: `/api/v1/imports/trello?teamId=${t.tenant.teamId}`,
  headers: { ...bearer(key), ...form.headers },
  payload: form.payload,
});
if (started.statusCode !== 202) throw new Error(`Trello import: ${started.statusCode} ${started.body}`);
const importId = (started.json() as { import: { _id: string } }).import._id;
let imported: { status: string; board?: string } = { status: 'running' };
for (const deadline = Date.now() + 120_000; imported.status === 'running'; ) {
  if (Date.now() > deadline) throw new Error('the Trello import never ended');
  await new Promise((resolve) => setTimeout(resolve, 200));
  imported = (await call<{ import: typeof imported }>('GET', `/api/v1/imports/${importId}`)).import;
}
if (!imported.board) throw new Error(`the Trello import ended ${imported.status} without a board`);
stage('seeded');

await t.app.listen({ port: 0, host: '127.0.0.1' });
const address = t.app.server.address();
const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

/** A free port for Chromium's remote debugging, which Lighthouse connects to. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const found = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof found === 'object' && found ? found.port : 0;
}
const port = await freePort();
const profile = mkdtempSync(join(tmpdir(), 'taskboard-lighthouse-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM,
  headless: true,
  args: [
    `--remote-debugging-port=${port}`,
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
});

type Preset = 'desktop' | 'mobile';
const round = (n: number | null | undefined, digits = 0) => (n == null ? null : Math.round(n * 10 ** digits) / 10 ** digits);

/**
 * One page under one preset, `RUNS` times: the median run's category scores and performance metrics
 * (by performance score), every run's performance score, and what the median run warned.
 */
async function audit(name: string, path: string, preset: Preset) {
  const runs: Result[] = [];
  for (let run = 0; run < RUNS; run++) {
    const runner = await lighthouse(
      `${base}${path}`,
      { port, logLevel: 'error', output: 'json', onlyCategories: [...CATEGORIES], clearStorageTypes: CLEARED, blockedUrlPatterns: BLOCKED },
      preset === 'desktop' ? desktopConfig : undefined,
    );
    if (!runner) throw new Error(`Lighthouse answered nothing for ${path}`);
    runs.push(runner.lhr);
  }
  // Lighthouse's own median needs Time to Interactive, which its performance category no longer computes.
  const finished = runs.filter((run) => !run.runtimeError);
  const byScore = (finished.length > 0 ? finished : runs).toSorted((a, b) => (a.categories.performance?.score ?? 0) - (b.categories.performance?.score ?? 0));
  const lhr = byScore[Math.floor((byScore.length - 1) / 2)] as Result;
  versions = { lighthouse: lhr.lighthouseVersion, chromium: lhr.environment.hostUserAgent };
  mkdirSync(REPORTS, { recursive: true });
  writeFileSync(join(REPORTS, `${name}-${preset}.json`), JSON.stringify(lhr));
  const scores = Object.fromEntries(CATEGORIES.map((category) => [category, round((lhr.categories[category]?.score ?? 0) * 100)]));
  const metric = (id: string) => lhr.audits[id]?.numericValue;
  const unusedJs = lhr.audits['unused-javascript']?.details as { overallSavingsBytes?: number } | undefined;
  // What costs points: every audit of the three categories that weighs in and did not pass.
  const failing = CATEGORIES.flatMap((category) =>
    (lhr.categories[category]?.auditRefs ?? [])
      .filter((ref) => {
        const score = lhr.audits[ref.id]?.score;
        return ref.weight > 0 && score != null && score < 1;
      })
      .map((ref) => `${category}: ${ref.id} ${round(lhr.audits[ref.id]?.score, 2)}`),
  );
  // A run Lighthouse could not finish (its score 0) says why.
  const performanceRuns = runs.map((run) => (run.runtimeError ? run.runtimeError.code : round((run.categories.performance?.score ?? 0) * 100)));
  stage(`${name} ${preset}: ${JSON.stringify(scores)}, performance of each run ${performanceRuns.join(' ')}`);
  return {
    ...scores,
    performanceRuns,
    benchmarkIndex: round(lhr.environment.benchmarkIndex),
    fcpMs: round(metric('first-contentful-paint')),
    lcpMs: round(metric('largest-contentful-paint')),
    tbtMs: round(metric('total-blocking-time')),
    cls: round(metric('cumulative-layout-shift'), 3),
    unusedJsBytes: unusedJs?.overallSavingsBytes ?? 0,
    failing,
    warnings: lhr.runWarnings,
  };
}

const results: Record<string, Partial<Record<Preset, Awaited<ReturnType<typeof audit>>>>> = {};
async function both(name: string, path: string) {
  if (ONLY && !ONLY.includes(name)) return;
  results[name] = {};
  for (const preset of PRESETS) results[name][preset] = await audit(name, path, preset);
}

/**
 * Lighthouse 12 dropped its installability audits (the PWA category): Chromium's own verdict instead,
 * on a signed-in page once the service worker controls it, with what the manifest declares.
 */
async function installable(page: import('@playwright/test').Page, path: string) {
  await page.goto(`${base}${path}`);
  const controlled = await page.evaluate(async () => {
    const sw = (globalThis as unknown as { navigator: { serviceWorker: { ready: Promise<unknown>; controller: unknown } } }).navigator.serviceWorker;
    await sw.ready;
    for (let i = 0; i < 100 && !sw.controller; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    return Boolean(sw.controller);
  });
  const cdp = await page.context().newCDPSession(page);
  const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
  const { url, errors, data } = await cdp.send('Page.getAppManifest');
  const manifest = JSON.parse(data ?? '{}') as { icons?: { sizes?: string; purpose?: string }[]; theme_color?: string; display?: string };
  await page.goto('about:blank');
  return {
    serviceWorkerControls: controlled,
    installabilityErrors: installabilityErrors.map((error) => error.errorId),
    manifest: url,
    manifestErrors: errors.map((error) => error.message),
    icons: (manifest.icons ?? []).map((icon) => `${icon.sizes ?? '?'} ${icon.purpose ?? 'any'}`),
    themeColor: manifest.theme_color ?? null,
    display: manifest.display ?? null,
  };
}

let installability: Awaited<ReturnType<typeof installable>> | undefined;
let versions = { lighthouse: '', chromium: '' };
try {
  await both('sign-in', '/sign-in');
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${base}/sign-in`);
  await page.getByRole('textbox', { name: 'Email' }).fill(EMAIL);
  await page.getByLabel('Password').fill(TEST_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/boards/);
  await page.goto('about:blank');
  stage('signed in');
  await both('boards', '/boards');
  await both('board-60-cards', `/boards/${boardId}`);
  await both('trello-import-122-cards', `/boards/${imported.board}`);
  installability = await installable(page, '/boards');
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
  await t.dispose();
}

process.stdout.write(`${JSON.stringify({ engine: 'sqlite', ...versions, results, installability }, null, 2)}\n`);
