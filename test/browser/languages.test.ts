/**
 * The languages of the web app in Chromium: the account's language wins over the browser's, Arabic
 * turns the page right to left (lists laid out from the right), German back left to right, and with
 * no account language the browser's (`navigator.languages`) is spoken. Found by role and name in each
 * language; axe scans the Arabic pages; screenshots of the board and a card in Arabic and German,
 * light and dark, desk and phone, are kept in test-results/browser for a person to look at. The
 * messages reach the page compiled: no script it loads holds the ICU parser.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from '@playwright/test';
import { chromiumMissing } from '../support/browser.ts';
import { axe, boardSuite, saveBoardScreens } from './board-support.ts';

describe('languages in a browser', { skip: chromiumMissing }, () => {
  const suite = boardSuite();

  async function accountLocale(): Promise<string | null> {
    return (await suite.api<{ user: { locale: string | null } }>('GET', '/api/v1/me')).user.locale;
  }
  const speaks = (page: Page, lang: string, dir: 'ltr' | 'rtl') => page.locator(`html[lang="${lang}"][dir="${dir}"]`).waitFor({ state: 'attached' });
  /** The left edges of two lists' regions. */
  async function leftEdges(page: Page, first: string, second: string): Promise<[number, number]> {
    const a = await page.getByRole('region', { name: first, exact: true }).boundingBox();
    const b = await page.getByRole('region', { name: second, exact: true }).boundingBox();
    assert.ok(a && b, 'both lists are on screen');
    return [a.x, b.x];
  }

  test("the account's language: Arabic right to left, then German, then the browser's again", async () => {
    const { boardId } = await suite.makeBoard('Roadmap', { 'To do': ['Alpha', 'Beta'], Doing: ['Gamma'] });
    await suite.onPage('languages-account', { locale: 'en-US', viewport: { width: 1440, height: 900 } }, async (page) => {
      await page.goto('/account');
      await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
      await speaks(page, 'en', 'ltr');

      await page.getByRole('combobox', { name: 'Language' }).selectOption('ar');
      await speaks(page, 'ar', 'rtl');
      await page.getByRole('heading', { name: 'الحساب', level: 1 }).waitFor();
      assert.equal(await accountLocale(), 'ar', 'the choice is the account’s');
      assert.equal(await page.getByRole('combobox', { name: 'اللغة' }).inputValue(), 'ar');
      await axe(page, 'the account page in Arabic');

      await page.goto(`/boards/${boardId}`);
      await speaks(page, 'ar', 'rtl');
      await page.getByRole('button', { name: 'إضافة بطاقة إلى To do' }).waitFor();
      await page.getByRole('button', { name: /^Alpha/ }).waitFor();
      const [todoRtl, doingRtl] = await leftEdges(page, 'To do', 'Doing');
      assert.ok(todoRtl > doingRtl, `the first list stands right of the second (${todoRtl} > ${doingRtl})`);
      // the arrow keys follow the page: the left arrow goes to the next list, on its left
      await page.getByRole('button', { name: /^Alpha/ }).focus();
      await page.keyboard.press('ArrowLeft');
      await page
        .getByRole('button', { name: /^Gamma/ })
        .and(page.locator(':focus'))
        .waitFor();
      await page.keyboard.press('ArrowRight');
      await page
        .getByRole('button', { name: /^Alpha/ })
        .and(page.locator(':focus'))
        .waitFor();
      await axe(page, 'the board in Arabic');
      await saveBoardScreens(page, 'ar-', /^Alpha/, 'Alpha');
      await page.setViewportSize({ width: 1440, height: 900 });

      // a reload starts in the account's language before the account answers
      await page.reload();
      await speaks(page, 'ar', 'rtl');
      await page.getByRole('button', { name: 'إضافة بطاقة إلى Doing' }).waitFor();

      await page.goto('/account');
      await page.getByRole('combobox', { name: 'اللغة' }).selectOption('de');
      await speaks(page, 'de', 'ltr');
      await page.getByRole('heading', { name: 'Konto', level: 1 }).waitFor();
      assert.equal(await accountLocale(), 'de');
      await page.goto(`/boards/${boardId}`);
      await page.getByRole('button', { name: 'Karte zu Doing hinzufügen' }).waitFor();
      const [todoLtr, doingLtr] = await leftEdges(page, 'To do', 'Doing');
      assert.ok(todoLtr < doingLtr, `left to right again (${todoLtr} < ${doingLtr})`);
      await saveBoardScreens(page, 'de-', /^Alpha/, 'Alpha');

      // the board in German was formatted from syntax trees compiled at build: no script this page
      // loaded holds the ICU parser (docs/decisions/0277)
      const scripts = await page.evaluate(() =>
        performance
          .getEntriesByType('resource')
          .map((entry) => entry.name)
          .filter((url) => url.endsWith('.js')),
      );
      assert.ok(
        scripts.some((url) => /\/assets\/de-[^/]+\.js$/.test(url)),
        `the German catalogue was loaded: ${scripts.join(', ')}`,
      );
      for (const url of scripts) {
        const body = await (await fetch(url)).text();
        assert.ok(!body.includes('EXPECT_ARGUMENT_CLOSING_BRACE'), `${url} holds the ICU parser`);
      }

      await page.goto('/account');
      await page.getByRole('combobox', { name: 'Sprache' }).selectOption({ label: 'Wie der Browser es wünscht' });
      await speaks(page, 'en', 'ltr');
      await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
      assert.equal(await accountLocale(), null);
    });
  });

  test("with no account language, the browser's first language spoken here", async () => {
    assert.equal(await accountLocale(), null);
    await suite.onPage('languages-browser', { locale: 'fr-CA' }, async (page) => {
      await page.goto('/');
      await speaks(page, 'fr', 'ltr');
      await page.getByRole('heading', { name: 'Tableaux', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Créer un tableau' }).first().waitFor();
    });
  });
});
