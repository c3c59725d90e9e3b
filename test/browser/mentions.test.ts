/**
 * A mention in a real browser: Olive writes `@` in a comment, takes Ana from the suggestions and sends
 * it; the comment shows Ana as a chip; Ana's bell counts it live (the time it took is printed); her
 * inbox reads it in words with the snippet, grouped by card, and opens the card at the exact comment,
 * marked. Ana watches the card from its side column. Accessibility scans of the inbox and the dialog.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from '@playwright/test';
import { chromiumMissing, contextWithKey, keepFailure, launch } from '../support/browser.ts';
import { addMember, seedBoard } from '../support/fixtures.ts';
import { buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { apiCaller, axe } from './board-support.ts';

declare const window: { notReloaded?: boolean };

for (const engine of ENGINES)
  describe(`mentions in a browser [${engine}]`, { skip: chromiumMissing }, () => {
    let t: TestApp;
    let browser: Browser;
    let baseURL = '';
    let ana: { userId: string; apiKey: string };
    let boardId: string;
    let cardId: string;
    const owner = apiCaller(
      () => baseURL,
      () => t.tenant.apiKey,
    );

    before(async () => {
      t = await buildTestApp(engine);
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address();
      baseURL = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      browser = await launch();
      ana = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'ana@acme.test', fullName: 'Ana Lopez' });
      // of the company but not of the board's team: never suggested
      await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [], email: 'andy@acme.test', fullName: 'Andy Outside' });
      const seeded = await seedBoard(t.services, t.tenant, { lists: 1 });
      boardId = seeded.boardId;
      cardId = (await owner<{ card: { _id: string } }>('POST', '/api/v1/cards', { list: seeded.listIds[0], name: 'Fix login' })).card._id;
    });
    after(async () => {
      await browser?.close();
      await t?.dispose();
    });

    const bell = (page: Page, unread: number) => page.getByRole('link', { name: `Notifications, ${unread} unread` });

    test('a mention reaches the other person live, reads in words, and opens the exact comment', async (context) => {
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
        const anaPage = await open('ana', ana.apiKey);
        await anaPage.goto('/boards');
        await bell(anaPage, 0).waitFor();
        await anaPage.evaluate(() => {
          window.notReloaded = true;
        });

        // Olive mentions Ana: the suggestions hold the card's team only
        await olive.goto(`/boards/${boardId}?card=${cardId}`);
        const dialog = olive.getByRole('dialog', { name: 'Fix login' });
        const box = dialog.getByRole('textbox', { name: 'Write a comment' });
        await box.fill('I pushed the fix, @An');
        const suggestions = dialog.getByRole('listbox', { name: 'Team members' });
        await suggestions.getByRole('option', { name: 'Ana Lopez' }).waitFor();
        assert.deepEqual(await suggestions.getByRole('option').allTextContents(), ['Ana Lopez'], 'nobody outside the team is suggested');
        await box.press('Enter');
        assert.equal(await box.inputValue(), 'I pushed the fix, @AnaLopez ');
        await box.pressSequentially('please check');
        const sent = Date.now();
        await dialog.getByRole('button', { name: 'Comment', exact: true }).click();

        // Ana's bell counts it without a reload
        await bell(anaPage, 1).waitFor();
        console.log(`mention delivery [${engine}]: ${Date.now() - sent} ms from Send to the other person's bell`);
        assert.equal(await anaPage.evaluate(() => window.notReloaded), true);

        // the comment shows Ana as a chip, linking to the board filtered by her
        const chip = dialog.getByRole('article', { name: /Olive Owner/ }).getByRole('link', { name: '@Ana Lopez' });
        await chip.waitFor();
        assert.equal(await chip.getAttribute('href'), `/boards/${boardId}?members=${ana.userId}`);
        await axe(olive, 'the card dialog with a mention chip');

        // the inbox in words, grouped by card, with the snippet
        await bell(anaPage, 1).click();
        const inbox = anaPage.getByRole('list', { name: 'Notifications' });
        const group = inbox.getByRole('list', { name: 'Notifications about Fix login' });
        const item = group.getByRole('link', { name: /^Olive Owner mentioned you on Fix login in Board/ });
        await item.waitFor();
        assert.match((await item.textContent()) ?? '', /I pushed the fix, @AnaLopez please check/);
        await inbox.getByRole('heading', { name: 'Fix login · Board' }).waitFor();
        await axe(anaPage, 'the inbox in words');

        // opening it opens the card at the exact comment, marked, and reads it
        const [comment] = (await owner<{ comments: { _id: string }[] }>('GET', `/api/v1/cards/${cardId}/comments`)).comments;
        assert.ok(comment);
        await item.click();
        await anaPage.waitForURL(`**/boards/${boardId}?card=${cardId}&item=${comment._id}`);
        const anaDialog = anaPage.getByRole('dialog', { name: 'Fix login' });
        await anaDialog.locator(`[data-item-id="${comment._id}"][data-search-target="true"]`).waitFor();
        await bell(anaPage, 0).waitFor();

        // Ana watches the card from its side column
        const watch = anaDialog.getByRole('button', { name: 'Watch' });
        assert.equal(await watch.getAttribute('aria-pressed'), 'false');
        await watch.click();
        await anaDialog.getByRole('button', { name: 'Watching', pressed: true }).waitFor();
        assert.equal(
          (
            await apiCaller(
              () => baseURL,
              () => ana.apiKey,
            )<{ watching: boolean }>('GET', `/api/v1/cards/${cardId}/watch`)
          ).watching,
          true,
        );
        await axe(anaPage, 'the card dialog with Watch');
        failed = false;
      } finally {
        for (const [name, browserContext, page] of contexts) await keepFailure(`${context.name}-${engine}-${name}`, browserContext, page, failed);
      }
    });
  });
