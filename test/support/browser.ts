import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from '@playwright/test';
import { ROOT } from './cli.ts';

/** Debian's Chromium (browsers cannot be downloaded here; `.ci/run` installs it when missing). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const chromiumMissing = existsSync(CHROMIUM)
  ? false
  : `Chromium is missing at ${CHROMIUM}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`;

/** Traces and screenshots of failures, and the screenshots a person looks at (ignored by git). */
export const ARTIFACTS = join(ROOT, 'test-results', 'browser');
mkdirSync(ARTIFACTS, { recursive: true });

export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/**
 * A context signed in with an API key kept where the app looks for one (before passwords exist).
 * Without the app's service worker unless `serviceWorkers: 'allow'`: when it takes control it re-reads
 * every query (web/src/offline/worker.ts), at a moment no test chooses, and a page's routes do not
 * see the requests it makes; the installable app's own tests allow it.
 */
export async function contextWithKey(
  browser: Browser,
  baseURL: string,
  apiKey: string,
  options: Parameters<Browser['newContext']>[0] = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL, serviceWorkers: 'block', ...options });
  await context.addInitScript(
    (key) => (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem('taskboard.apiKey', key),
    apiKey,
  );
  await context.tracing.start({ screenshots: true, snapshots: true });
  return context;
}

/** Keeps a trace and a screenshot of a context whose test failed. */
export async function keepFailure(name: string, context: BrowserContext, page: Page | undefined, failed: boolean): Promise<void> {
  const safe = name.replace(/[^a-z0-9-]+/gi, '-');
  if (failed) {
    if (page) await page.screenshot({ path: join(ARTIFACTS, `${safe}-failure.png`), fullPage: true }).catch(() => {});
    await context.tracing.stop({ path: join(ARTIFACTS, `${safe}-trace.zip`) }).catch(() => {});
  } else await context.tracing.stop().catch(() => {});
}

/** Holds the page's requests to `url` (a glob) until the function answered is called: a slow network. */
export async function holdRequests(page: Page, url: string): Promise<() => void> {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(url, async (route) => {
    await held;
    await route.continue();
  });
  return release;
}

/** Polls `check` (every 50 ms, for 10 s at most) until it holds: a write the page sent reaches the server a moment after it shows. */
export async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() >= deadline) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The box of a control that may be mounted again while it is measured (an icon button is, once the
 * tooltips load): measured again, after waiting for it to show, until it is measured whole.
 */
export async function steadyBox(locator: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    await locator.waitFor();
    const box = await locator.boundingBox();
    if (box) return box;
  }
  throw new Error(`${locator} never stayed on the page long enough to be measured`);
}

/**
 * Light, dark and phone pictures of what the page shows now, for a person to look at: only when
 * SHOTS_DIR names a folder (a run that wants them), as `<name>-light|dark|phone.png`.
 */
export async function shootPage(page: Page, name: string): Promise<void> {
  const folder = process.env.SHOTS_DIR;
  if (!folder) return;
  const size = page.viewportSize() ?? { width: 1280, height: 800 };
  await page.screenshot({ path: join(folder, `${name}-light.png`), fullPage: true });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(folder, `${name}-dark.png`), fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(folder, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize(size);
}
