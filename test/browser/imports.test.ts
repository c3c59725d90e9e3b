/**
 * Importing a Trello board from the boards page, as a person does: the team's "Import a board"
 * button, the file picker, the file's people each mapped to a member, nobody or invited by email
 * (the link shown to copy, as no mail is set up), the progress until
 * the dialog links to the new board, which then opens with its lists and cards; a person left
 * unmapped is mapped afterwards on the "map them now" page; a malformed file is refused in the
 * dialog with the server's words; axe finds no serious or critical violation in the dialog or page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from '@playwright/test';
import { chromiumMissing, contextWithKey, keepFailure, launch } from '../support/browser.ts';
import { addMember } from '../support/fixtures.ts';
import { buildTestApp, type TestApp } from '../support/harness.ts';
import { smallTrelloExport } from '../support/trello.ts';
import { axe, cardIn } from './board-support.ts';

describe('importing a Trello board in a browser', { skip: chromiumMissing }, () => {
  let t: TestApp;
  let browser: Browser;
  let baseURL: string;

  before(async () => {
    t = await buildTestApp('sqlite');
    await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'alice@acme.test', fullName: 'Alice Author' });
    await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'bob@acme.test', fullName: 'Bob Builder' });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    baseURL = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await t?.dispose();
  });

  test('pick the export, follow the import, open the board', async () => {
    const context = await contextWithKey(browser, baseURL, t.tenant.apiKey);
    const page = await context.newPage();
    let failed = true;
    try {
      await page.goto('/boards');
      await page.getByRole('button', { name: 'Import a board into Core' }).click();
      const dialog = page.getByRole('dialog', { name: 'Import a board into Core' });
      await dialog.waitFor();
      await axe(page, 'the import dialog');

      // a file that is no Trello export: the server's reason, in the dialog
      await dialog.getByLabel('Export file').setInputFiles({ name: 'notes.json', mimeType: 'application/json', buffer: Buffer.from('{"name": "Half') });
      await dialog.getByRole('button', { name: 'Start import' }).click();
      await dialog.getByRole('alert').filter({ hasText: 'not JSON' }).waitFor();

      await dialog
        .getByLabel('Export file')
        .setInputFiles({ name: 'launch.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(smallTrelloExport())) });
      // the file's people, each with the member the server suggests, before anything is imported
      const people = dialog.getByRole('group', { name: 'People in the file' });
      await people.waitFor();
      const alice = people.getByRole('combobox', { name: /Who is Alice Author \(@alice_a\) here\?/ });
      const robert = people.getByRole('combobox', { name: /Who is Robert B\. \(@bob\) here\?/ });
      const zoe = people.getByRole('combobox', { name: /Who is Zoë Unknown \(@zoe\) here\?/ });
      assert.equal(await alice.locator('option:checked').textContent(), 'Alice Author');
      assert.equal(await robert.locator('option:checked').textContent(), 'Bob Builder');
      assert.equal(await zoe.locator('option:checked').textContent(), 'Nobody (left off the cards)');
      await people.getByText('on 1 card, 1 comment').first().waitFor();
      await axe(page, 'the import dialog with its people');
      // Robert is not Bob after all: nobody
      await robert.selectOption({ label: 'Nobody (left off the cards)' });
      // Zoë is invited by email
      await zoe.selectOption({ label: 'Invite by email…' });
      await people.getByRole('textbox', { name: /Email to invite Zoë Unknown \(@zoe\) by/ }).fill('zoe@elsewhere.test');
      await dialog.getByRole('button', { name: 'Start import' }).click();
      const link = dialog.getByRole('group', { name: 'Invitation link for zoe@elsewhere.test' });
      await link.waitFor();
      assert.match(await link.getByRole('textbox').inputValue(), /\/invitations#tbi_/);
      const open = dialog.getByRole('link', { name: 'Open Launch 🚀 — планы' });
      await open.waitFor();
      await dialog.getByRole('status').filter({ hasText: 'Imported Launch 🚀 — планы.' }).waitFor();
      assert.match((await dialog.textContent()) ?? '', /Zoë Unknown \(@zoe\): invited \(zoe@elsewhere\.test\)/);
      // what was left out is said in words, never by the report's keys
      const report = (await dialog.textContent()) ?? '';
      assert.match(report, /Power-Ups?/);
      assert.doesNotMatch(report, /powerUps|customFields|unmatched[A-Z]|: \d/);
      await axe(page, 'the import dialog once done');
      // the people left unmapped are said in words, with the page that maps them
      await dialog.getByText('2 card memberships were not matched, and 1 checklist item membership.').waitFor();
      const importUrl = await dialog.getByRole('link', { name: 'Map them now' }).getAttribute('href');
      assert.match(String(importUrl), /^\/imports\/[0-9a-f]{24}\/people$/);
      // the team's boards show it too
      await page.getByRole('main').getByRole('link', { name: 'Launch 🚀 — планы', exact: true }).waitFor();
      await open.click();
      await page.waitForURL('**/boards/*');
      await cardIn(page, 'To do', 'Write the press release').waitFor();
      await cardIn(page, 'To do', 'Second card').waitFor();
      await page.getByRole('region', { name: 'Doing', exact: true }).waitFor();

      // later: Robert is mapped to Bob on the page the link leads to
      await page.goto(String(importUrl));
      await page.getByRole('heading', { name: 'Map the people of Launch 🚀 — планы' }).waitFor();
      const waiting = page.getByRole('group', { name: 'People not mapped yet' });
      await waiting.waitFor();
      await axe(page, 'the page that maps the people of an import');
      await waiting.getByRole('combobox', { name: /Who is Robert B\. \(@bob\) here\?/ }).selectOption({ label: 'Bob Builder' });
      await page.getByRole('button', { name: 'Map people' }).click();
      await page.getByRole('status').filter({ hasText: '1 person mapped.' }).waitFor();
      await waiting.getByRole('combobox', { name: /Who is Robert B\./ }).waitFor({ state: 'detached' });
      await waiting.getByRole('combobox', { name: /Who is Zoë Unknown.*invited \(zoe@elsewhere\.test\)/ }).waitFor();
      const robertCards = await t.services.db
        .selectFrom('card_members')
        .innerJoin('users', 'users.id', 'card_members.user_id')
        .select('users.full_name')
        .where('users.full_name', '=', 'Bob Builder')
        .execute();
      assert.equal(robertCards.length, 1);
      failed = false;
    } finally {
      await keepFailure('import-dialog', context, page, failed);
      await context.close();
    }
  });
});
