/** What the board page's browser tests share: the accessibility scan, finding a card, the API beside the page, a board made through it. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before } from 'node:test';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from '@playwright/test';
import type { Clock } from '../../src/domain/shared/clock.ts';
import { ARTIFACTS, contextWithKey, keepFailure, launch } from '../support/browser.ts';
import { buildTestApp, type TestApp } from '../support/harness.ts';

/** axe-core on what the page shows now: no serious or critical violation. */
export async function axe(page: Page, what: string) {
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  assert.deepEqual(
    bad.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(' | ')}`),
    [],
    `serious or critical accessibility violations on ${what}`,
  );
}

/** The card named `card` (its name starts with it) in the list region named `list`. */
/**
 * Screenshots a person can look at, in test-results/browser: the open board and one card's dialog,
 * light and dark, at a desk's 1440 px and a phone's 390 px. `card` is the card's button name.
 */
export async function saveBoardScreens(page: Page, prefix: string, card: RegExp, dialogName: string) {
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.screenshot({ path: join(ARTIFACTS, `${prefix}board-${theme}-${width}.png`), animations: 'disabled' });
      await page.getByRole('button', { name: card }).first().click();
      await page.getByRole('dialog', { name: dialogName }).waitFor();
      await page.screenshot({ path: join(ARTIFACTS, `${prefix}card-${theme}-${width}.png`), animations: 'disabled' });
      if (theme === 'dark' && width === 390) await axe(page, `${prefix}the card dialog, dark, 390 px`);
      await page.keyboard.press('Escape');
      await page.getByRole('dialog', { name: dialogName }).waitFor({ state: 'detached' });
    }
  }
  await page.emulateMedia({ colorScheme: null });
}

export const cardIn = (page: Page, list: string, card: string) =>
  page.getByRole('region', { name: list, exact: true }).getByRole('button', { name: new RegExp(`^${card}`) });

/** A JSON call to the API with the tenant's key, as another client of the board would make it; fails on an error answer. */
export function apiCaller(baseURL: () => string, apiKey: () => string) {
  return async function api<T = Record<string, never>>(method: string, path: string, body?: unknown): Promise<T & Record<string, unknown>> {
    const response = await fetch(`${baseURL()}${path}`, {
      method,
      headers: { Authorization: `Bearer ${apiKey()}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as T & Record<string, unknown>;
    assert.ok(response.ok, `${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
}

/** A board in `teamId` with `lists` (name → card names), made through `api`; its id, and the lists' and cards' ids by name. */
export async function makeBoard(api: ReturnType<typeof apiCaller>, teamId: string, name: string, lists: Record<string, string[]>) {
  const { board } = await api<{ board: { _id: string } }>('POST', `/api/v1/boards?teamId=${teamId}`, { name });
  const cards = new Map<string, string>();
  const listIds = new Map<string, string>();
  for (const [list, names] of Object.entries(lists)) {
    const listId = (await api<{ list: { _id: string } }>('POST', '/api/v1/lists', { board: board._id, name: list, position: 'bottom' })).list._id;
    listIds.set(list, listId);
    for (const card of names)
      cards.set(card, (await api<{ card: { _id: string } }>('POST', '/api/v1/cards', { list: listId, name: card, position: 'bottom' })).card._id);
  }
  return { boardId: board._id, cards, listIds };
}

export interface BoardSuite {
  t: TestApp;
  browser: Browser;
  baseURL: string;
  api: ReturnType<typeof apiCaller>;
  /** A page of its own browser context, signed in with the tenant's key; the context's trace is kept when `run` fails. */
  onPage(name: string, options: Parameters<Browser['newContext']>[0], run: (page: Page, context: BrowserContext) => Promise<void>): Promise<void>;
  /** A board of the tenant's team with `lists` (name → card names), made through the API. */
  makeBoard(name: string, lists: Record<string, string[]>): ReturnType<typeof makeBoard>;
}

/**
 * Called inside a `describe`: the app over SQLite on a free port and a headless Chromium, made before the
 * suite's tests and closed after them; with `clock`, the app keeps the test's time.
 */
export function boardSuite(options: { clock?: Clock } = {}): BoardSuite {
  const suite = {} as BoardSuite;
  suite.api = apiCaller(
    () => suite.baseURL,
    () => suite.t.tenant.apiKey,
  );
  suite.makeBoard = (name, lists) => makeBoard(suite.api, suite.t.tenant.teamId, name, lists);
  suite.onPage = async (name, options, run) => {
    const context = await contextWithKey(suite.browser, suite.baseURL, suite.t.tenant.apiKey, options);
    const page = await context.newPage();
    let failed = true;
    try {
      await run(page, context);
      failed = false;
    } finally {
      await keepFailure(name, context, page, failed);
      await context.close();
    }
  };
  before(async () => {
    suite.t = await buildTestApp('sqlite', options.clock ? { clock: options.clock } : {});
    await suite.t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = suite.t.app.server.address();
    suite.baseURL = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    suite.browser = await launch();
  });
  after(async () => {
    await suite.browser?.close();
    await suite.t?.dispose();
  });
  return suite;
}
