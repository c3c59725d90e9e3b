/**
 * The frame of the card dialog's browser suites: the app on SQLite (or PostgreSQL) over HTTP, a
 * team of Olive Owner and Alice Author, a board with lists To do and Doing and a card Launch, and
 * Chromium contexts signed in with either one's API key.
 */
import assert from 'node:assert/strict';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, BrowserContext, Locator, Page } from '@playwright/test';
import type { Engine } from '../../src/storage/database-url.ts';
import { contextWithKey, keepFailure, launch } from './browser.ts';
import { addMember, type MemberFixture } from './fixtures.ts';
import { buildTestApp, type TestApp } from './harness.ts';

export interface CardDialogFixture {
  t: TestApp;
  baseURL: string;
  browser: Browser;
  alice: MemberFixture;
  boardId: string;
  lists: { toDo: string; doing: string };
  api: (method: string, path: string, body?: unknown, key?: string) => Promise<Record<string, unknown>>;
  newCard: (name: string, list?: string) => Promise<string>;
  open: (key?: string, options?: Parameters<Browser['newContext']>[0]) => Promise<{ context: BrowserContext; page: Page; confirmations: string[] }>;
  openCard: (page: Page, cardId: string, name: string) => Promise<Locator>;
  dispose: () => Promise<void>;
}

export async function cardDialogFixture(engine: Engine = 'sqlite'): Promise<CardDialogFixture> {
  const t = await buildTestApp(engine);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  const baseURL = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const alice = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'alice@acme.test', fullName: 'Alice Author' });
  const browser = await launch();
  const contexts: BrowserContext[] = [];

  async function api(method: string, path: string, body?: unknown, key = t.tenant.apiKey) {
    const response = await fetch(`${baseURL}${path}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as Record<string, unknown>;
    assert.ok(response.ok, `${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  }
  const boardId = ((await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Launch board' })).board as { _id: string })._id;
  const list = async (name: string) => ((await api('POST', '/api/v1/lists', { board: boardId, name })).list as { _id: string })._id;
  const lists = { toDo: await list('To do'), doing: await list('Doing') };
  const newCard = async (name: string, listId = lists.toDo) => ((await api('POST', '/api/v1/cards', { list: listId, name })).card as { _id: string })._id;

  return {
    t,
    baseURL,
    browser,
    alice,
    boardId,
    lists,
    api,
    newCard,
    async open(key = t.tenant.apiKey, options = {}) {
      const context = await contextWithKey(browser, baseURL, key, { viewport: { width: 1280, height: 900 }, ...options });
      contexts.push(context);
      const page = await context.newPage();
      // confirmations are accepted, as a person who meant it would; their words are kept
      const confirmations: string[] = [];
      page.on('dialog', (dialog) => {
        confirmations.push(dialog.message());
        void dialog.accept();
      });
      return { context, page, confirmations };
    },
    async openCard(page, cardId, name) {
      await page.goto(`/boards/${boardId}?card=${cardId}`);
      const dialog = page.getByRole('dialog', { name });
      await dialog.waitFor();
      return dialog;
    },
    async dispose() {
      for (const context of contexts) await context.close().catch(() => {});
      await browser.close();
      await t.dispose();
    },
  };
}

/** No serious or critical accessibility violation on the page as it is. */
export async function axe(page: Page, what: string) {
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  assert.deepEqual(
    bad.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(' | ')}`),
    [],
    `serious or critical accessibility violations on ${what}`,
  );
}

/** Runs a browser test body, keeping a trace and a screenshot when it fails. */
export async function keeping(name: string, context: BrowserContext, page: Page, body: () => Promise<void>) {
  let failed = true;
  try {
    await body();
    failed = false;
  } finally {
    await keepFailure(name, context, page, failed);
  }
}
