/**
 * Notifications and My Tasks in a real browser: one person assigns another to a card and the other's
 * bell counts it live, without a reload; the inbox opens the card, marks one and then all read; My
 * Tasks lists the assigned cards by due date and completing one there sticks. Accessibility scans.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from '@playwright/test';
import { chromiumMissing, contextWithKey, keepFailure, launch } from '../support/browser.ts';
import { addMember, seedBoard } from '../support/fixtures.ts';
import { buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { apiCaller, axe } from './board-support.ts';

// page.evaluate's callbacks run in the page (the suite's own type check has no DOM library)
declare const window: { notReloaded?: boolean; shown?: { title: string; body: string; tag: string; onclick: (() => void) | null }[] };

/**
 * Bob's page gets a stand-in for the browser's Notification (headless Chromium shows none): it asks
 * like the real one and records what the app shows.
 */
function recordBrowserNotifications() {
  const page = globalThis as unknown as { shown: unknown[]; Notification: unknown };
  page.shown = [];
  let permission = 'default';
  page.Notification = class {
    static get permission() {
      return permission;
    }
    static async requestPermission() {
      permission = 'granted';
      return permission;
    }
    onclick: (() => void) | null = null;
    title: string;
    body: string;
    tag: string;
    constructor(title: string, options: { body: string; tag: string }) {
      this.title = title;
      this.body = options.body;
      this.tag = options.tag;
      page.shown.push(this);
    }
    close() {}
  };
}

// The bell is live through the event record's wake-up, which differs by engine: both are run.
for (const engine of ENGINES)
  describe(`notifications and My Tasks in a browser [${engine}]`, { skip: chromiumMissing }, () => {
    let t: TestApp;
    let browser: Browser;
    let baseURL = '';
    let bob: { userId: string; apiKey: string };
    let boardId: string;
    const cards: Record<'launch' | 'docs' | 'ship', string> = { launch: '', docs: '', ship: '' };
    const owner = apiCaller(
      () => baseURL,
      () => t.tenant.apiKey,
    );
    const asBob = apiCaller(
      () => baseURL,
      () => bob.apiKey,
    );

    before(async () => {
      t = await buildTestApp(engine);
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address();
      baseURL = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      browser = await launch();
      bob = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'bob@acme.test', fullName: 'Bob Builder' });
      const seeded = await seedBoard(t.services, t.tenant, { lists: 1 });
      boardId = seeded.boardId;
      const list = seeded.listIds[0];
      // Due dates out of creation order, so "by due date" is not the order the API lists them in.
      cards.launch = (await owner<{ card: { _id: string } }>('POST', '/api/v1/cards', { list, name: 'Launch' })).card._id;
      cards.docs = (await owner<{ card: { _id: string } }>('POST', '/api/v1/cards', { list, name: 'Docs', dueDate: '2031-03-01T12:00:00.000Z' })).card._id;
      cards.ship = (await owner<{ card: { _id: string } }>('POST', '/api/v1/cards', { list, name: 'Ship', dueDate: '2030-01-15T12:00:00.000Z' })).card._id;
    });
    after(async () => {
      await browser?.close();
      await t?.dispose();
    });

    const bell = (page: Page, unread: number) => page.getByRole('link', { name: `Notifications, ${unread} unread` });

    test('a bell lit live by another person; the inbox opens the card and marks read; My Tasks completes in place', async (context) => {
      const contexts: [string, BrowserContext, Page][] = [];
      const open = async (name: string, key: string) => {
        const browserContext = await contextWithKey(browser, baseURL, key);
        const page = await browserContext.newPage();
        contexts.push([name, browserContext, page]);
        return page;
      };
      let failed = true;
      try {
        const olive = await open('olive', t.tenant.apiKey);
        const bobPage = await open('bob', bob.apiKey);
        await bobPage.addInitScript(recordBrowserNotifications);
        await bobPage.goto('/boards');
        await bell(bobPage, 0).waitFor();
        // Bob allows the browser's own notifications from his inbox
        await bell(bobPage, 0).click();
        await bobPage.getByRole('button', { name: 'Turn on browser notifications' }).click();
        await bobPage.getByRole('button', { name: 'Turn on browser notifications' }).waitFor({ state: 'detached' });
        await bobPage.getByText('No notifications yet.').waitFor();
        await bobPage.evaluate(() => {
          window.notReloaded = true;
        });

        // Olive adds Bob to Launch in her card dialog; Bob's bell counts it without a reload
        await olive.goto(`/boards/${boardId}?card=${cards.launch}`);
        const dialog = olive.getByRole('dialog', { name: 'Launch' });
        await dialog.getByRole('button', { name: /Bob Builder/ }).click();
        await dialog.getByRole('button', { name: /Bob Builder/, pressed: true }).waitFor();
        await bell(bobPage, 1).waitFor();
        // the open inbox shows it too, and the browser told Bob
        await bobPage.getByRole('link', { name: 'Olive Owner added you to Launch in Board' }).waitFor();
        await bobPage.waitForFunction(() => (window.shown?.length ?? 0) > 0);
        assert.deepEqual(await bobPage.evaluate(() => window.shown?.map((shown) => [shown.title, shown.body])), [['Taskboard', 'You were added to Launch']]);
        // and two more from another client of the API
        await owner('POST', `/v2/cards/${cards.docs}/members`, { members: [bob.userId] });
        await owner('POST', `/v2/cards/${cards.ship}/members`, { members: [bob.userId] });
        await bell(bobPage, 3).waitFor();
        assert.equal(await bobPage.evaluate(() => window.notReloaded), true, 'the bell changed without a reload');

        // the inbox, newest first
        await bobPage.getByRole('heading', { name: 'Notifications' }).waitFor();
        const inbox = bobPage.getByRole('list', { name: 'Notifications' });
        await inbox.getByRole('link', { name: 'Olive Owner added you to Launch in Board' }).waitFor();
        await inbox.getByRole('link', { name: 'Olive Owner added you to Ship in Board' }).waitFor();
        assert.deepEqual(await inbox.getByRole('link').allTextContents(), [
          'Olive Owner added you to Ship in Board',
          'Olive Owner added you to Docs in Board',
          'Olive Owner added you to Launch in Board',
        ]);
        // grouped by card: each card's notifications under its name and board
        assert.deepEqual(await inbox.getByRole('heading', { level: 2 }).allTextContents(), ['Ship · Board', 'Docs · Board', 'Launch · Board']);
        await axe(bobPage, 'the inbox');

        // mark one read
        await inbox.getByRole('button', { name: 'Mark read: Olive Owner added you to Ship in Board' }).click();
        await bell(bobPage, 2).waitFor();
        await inbox.getByRole('button', { name: 'Mark read: Olive Owner added you to Ship in Board' }).waitFor({ state: 'detached' });

        // open one: its card's dialog on its board, and it is read
        await inbox.getByRole('link', { name: 'Olive Owner added you to Launch in Board' }).click();
        await bobPage.waitForURL(`**/boards/${boardId}?card=${cards.launch}`);
        await bobPage.getByRole('dialog', { name: 'Launch' }).waitFor();
        await bell(bobPage, 1).waitFor();
        await bobPage.keyboard.press('Escape');

        // mark all read
        await bell(bobPage, 1).click();
        await bobPage.getByRole('button', { name: 'Mark all read' }).click();
        await bell(bobPage, 0).waitFor();
        const stored = await asBob<{ notifications: { readAt: string | null }[] }>('GET', '/api/v1/notifications');
        assert.equal(stored.notifications.length, 3);
        assert.ok(
          stored.notifications.every((notification) => notification.readAt !== null),
          'every notification is read in the API too',
        );
        assert.equal((await owner<{ notifications: unknown[] }>('GET', '/api/v1/notifications?unread=true')).notifications.length, 0, 'Olive was told nothing');

        // a click on the browser's notification opens its card too
        await bobPage.evaluate(() => window.shown?.[0]?.onclick?.());
        await bobPage.waitForURL(`**/boards/${boardId}?card=${cards.launch}`);
        await bobPage.getByRole('dialog', { name: 'Launch' }).waitFor();
        await bobPage.keyboard.press('Escape');

        // My Tasks: Bob's cards by due date, the one without a date last
        await bobPage.getByRole('banner').getByRole('link', { name: 'My Tasks' }).click();
        await bobPage.getByRole('heading', { name: 'My Tasks' }).waitFor();
        const tasks = bobPage.getByRole('list', { name: 'My Tasks' });
        await tasks.getByRole('link', { name: 'Launch' }).waitFor();
        assert.deepEqual(await tasks.getByRole('link').allTextContents(), ['Ship', 'Docs', 'Launch']);
        await axe(bobPage, 'My Tasks');

        // completing one in place sticks: in the API and after a reload
        const complete = tasks.getByRole('checkbox', { name: 'Complete Docs' });
        assert.equal(await complete.isChecked(), false);
        await complete.check();
        await tasks.getByRole('checkbox', { name: 'Complete Docs', checked: true, disabled: false }).waitFor();
        const docs = await asBob<{ card: { complete: { status: boolean } } }>('GET', `/api/v1/cards/${cards.docs}`);
        assert.equal(docs.card.complete.status, true);

        // a change made elsewhere meanwhile is not overwritten: the 412 says so and shows the card as it is now
        await owner('PATCH', `/api/v1/cards/${cards.ship}`, { name: 'Ship it' });
        await tasks.getByRole('checkbox', { name: 'Complete Ship' }).click();
        await tasks.getByRole('alert').filter({ hasText: 'This card changed meanwhile' }).waitFor();
        await tasks.getByRole('checkbox', { name: 'Complete Ship it', checked: false, disabled: false }).waitFor();
        assert.equal((await asBob<{ card: { complete: { status: boolean } } }>('GET', `/api/v1/cards/${cards.ship}`)).card.complete.status, false);

        await bobPage.reload();
        await tasks.getByRole('checkbox', { name: 'Complete Docs', checked: true }).waitFor();
        assert.equal(await tasks.getByRole('checkbox', { name: 'Complete Ship it' }).isChecked(), false);
        failed = false;
      } finally {
        for (const [name, browserContext, page] of contexts) await keepFailure(`${context.name}-${engine}-${name}`, browserContext, page, failed);
      }
    });

    test('three tabs of one person: one notifications stream serves them all, and the third tab still answers', async (context) => {
      // A browser keeps six connections per server over HTTP/1.1: a board stream and a bell stream in every tab took them all at the third tab.
      const browserContext = await contextWithKey(browser, baseURL, bob.apiKey);
      const tabs: Page[] = [];
      let failed = true;
      try {
        for (let i = 0; i < 3; i++) {
          const tab = await browserContext.newPage();
          tabs.push(tab);
          await tab.goto(`/boards/${boardId}`);
          await bell(tab, 0).waitFor();
        }
        const third = tabs[2] as Page;
        await third.getByRole('button', { name: /^Launch/ }).click();
        await third.getByRole('dialog', { name: 'Launch' }).waitFor();
        // Bob taken off Launch and put back: the one stream's notification lights the bell of every tab
        await owner('POST', `/v2/cards/${cards.launch}/members`, { members: [bob.userId] });
        await owner('POST', `/v2/cards/${cards.launch}/members`, { members: [bob.userId] });
        for (const tab of tabs) await bell(tab, 1).waitFor();
        failed = false;
      } finally {
        await keepFailure(`${context.name}-${engine}`, browserContext, tabs[2] ?? (await browserContext.newPage()), failed);
      }
    });
  });
