/**
 * Company administration in a real browser, as its owner uses it after signing in with a password:
 * who reaches it, members and roles, invitations (the link to copy when no mail is set up), teams,
 * and webhooks against a real local receiver (the secret shown once, deliveries with their status,
 * redeliver, rotate, delete). The API confirms each outcome; axe scans every page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from '@playwright/test';
import { chromiumMissing, contextWithKey, keepFailure, launch } from '../support/browser.ts';
import { addMember, addTeam } from '../support/fixtures.ts';
import { buildTestApp, type TestApp } from '../support/harness.ts';
import { givePassword, TEST_PASSWORD } from '../support/people.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';
import { axe } from './board-support.ts';

interface Member {
  _id: string;
  email: string;
  fullName: string;
  role: string;
}

describe('company administration in a browser', { skip: chromiumMissing }, () => {
  let t: TestApp;
  let browser: Browser;
  let baseURL: string;
  let companyId: string;
  let seq = 0;

  /** A JSON call with the owner's key; fails on an error answer unless `status` says which to expect. */
  async function api<T = Record<string, unknown>>(method: string, url: string, payload?: object, status?: number): Promise<T> {
    const res = await t.app.inject({ method: method as 'GET', url, headers: { authorization: `Bearer ${t.tenant.apiKey}` }, ...(payload ? { payload } : {}) });
    if (status !== undefined) assert.equal(res.statusCode, status, res.body);
    else assert.ok(res.statusCode < 300, `${method} ${url} → ${res.statusCode} ${res.body}`);
    return (res.body ? res.json() : {}) as T;
  }
  const members = async () => (await api<{ members: Member[] }>('GET', `/api/v1/companies/${companyId}/members`)).members;

  /** A new person of the company, with a role and a key. */
  async function person(fullName: string, role: 'owner' | 'admin' | 'member' = 'member', teamIds: string[] = []) {
    seq += 1;
    const email = `${fullName.split(' ')[0]?.toLowerCase()}${seq}@acme.test`;
    return { email, fullName, ...(await addMember(t.services, { companyId, teamIds, email, fullName, role })) };
  }

  before(async () => {
    t = await buildTestApp('sqlite');
    companyId = t.tenant.companyId;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    baseURL = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    await givePassword(t.services, 'owner@acme.test');
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await t?.dispose();
  });

  /**
   * Runs `steps` in a browser signed in as the owner with the password (the session cookie and its
   * CSRF token, as a person's browser), accepting every confirmation and keeping its text.
   */
  async function asOwner(name: string, steps: (page: Page, confirmations: string[]) => Promise<void>) {
    const context = await browser.newContext({ baseURL });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
    await context.tracing.start({ screenshots: true, snapshots: true });
    await run(name, context, async (page) => {
      const confirmations: string[] = [];
      page.on('dialog', (dialog) => {
        confirmations.push(dialog.message());
        void dialog.accept();
      });
      await page.goto('/sign-in');
      await page.getByRole('textbox', { name: 'Email' }).fill('owner@acme.test');
      await page.getByLabel('Password').fill(TEST_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/boards/);
      await page.getByRole('link', { name: 'Administration' }).click();
      await page.getByRole('heading', { name: 'Acme: administration', level: 1 }).waitFor();
      await steps(page, confirmations);
    });
  }

  async function run(name: string, context: BrowserContext, steps: (page: Page) => Promise<void>) {
    const page = await context.newPage();
    let failed = true;
    try {
      await steps(page);
      failed = false;
    } finally {
      await keepFailure(`admin-${name}`, context, page, failed);
      await context.close();
    }
  }

  test('only owners and admins see the link and reach the pages', async () => {
    const member = await person('Mia Member', 'member', [t.tenant.teamId]);
    await run('reach-member', await contextWithKey(browser, baseURL, member.apiKey), async (page) => {
      await page.goto('/boards');
      await page.getByRole('banner').getByRole('link', { name: 'My Tasks' }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Administration' }).count(), 0);
      for (const path of ['/admin', `/admin/${companyId}/members`, `/admin/${companyId}/webhooks`]) {
        await page.goto(path);
        await page.getByRole('heading', { name: 'Not allowed', level: 1 }).waitFor();
        await page.getByText("Only this company's owners and admins can open its administration.").waitFor();
      }
      assert.equal(await page.getByRole('region', { name: 'Members' }).count(), 0);
      await axe(page, 'the not-allowed page');
    });
    // an admin has the link and the pages
    const admin = await person('Abe Admin', 'admin');
    await run('reach-admin', await contextWithKey(browser, baseURL, admin.apiKey), async (page) => {
      await page.goto('/boards');
      await page.getByRole('link', { name: 'Administration' }).click();
      await page.getByRole('region', { name: 'Members' }).getByText(admin.email).waitFor();
      // an owner's role is not an admin's to change: shown, not offered
      assert.equal(await page.getByRole('combobox', { name: 'Role of Olive Owner' }).count(), 0);
      assert.equal(await page.getByRole('button', { name: 'Remove Olive Owner' }).count(), 0);

      // made a member meanwhile: the page still believes its first read, the API refuses, the page says so
      await api('PATCH', `/api/v1/companies/${companyId}/members/${admin.userId}`, { role: 'member' });
      await page.getByRole('navigation', { name: 'Administration sections' }).getByRole('link', { name: 'Teams' }).click();
      await page.getByRole('heading', { name: 'Not allowed', level: 1 }).waitFor();
      assert.equal(await page.getByRole('region', { name: 'Teams' }).count(), 0);
      await page.reload();
      await page.getByRole('heading', { name: 'Not allowed', level: 1 }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Administration' }).count(), 0);
    });
  });

  test('members: change a role, remove a member (confirmed, naming them)', async () => {
    const mo = await person('Mo Member');
    const rita = await person('Rita Removed', 'member', [t.tenant.teamId]);
    await asOwner('members', async (page, confirmations) => {
      const region = page.getByRole('region', { name: 'Members' });
      await region.getByRole('listitem').filter({ hasText: rita.email }).waitFor();
      await axe(page, 'the members page');

      const role = region.getByRole('combobox', { name: 'Role of Mo Member' });
      assert.equal(await role.inputValue(), 'member');
      await role.selectOption({ label: 'Admin' });
      await region.getByRole('status').filter({ hasText: 'Mo Member is now Admin.' }).waitFor();
      assert.equal((await members()).find((m) => m._id === mo.userId)?.role, 'admin');
      // the picker shows the stored role once the list is read again
      await page.waitForFunction(`document.querySelector('select[aria-label="Role of Mo Member"]')?.value === 'admin'`);

      await region.getByRole('button', { name: 'Remove Rita Removed' }).click();
      await region.getByRole('listitem').filter({ hasText: rita.email }).waitFor({ state: 'detached' });
      assert.deepEqual(confirmations, [
        `Remove Rita Removed (${rita.email}) from Acme? They leave its teams and lose its boards at once; what they wrote stays.`,
      ]);
      await region.getByRole('status').filter({ hasText: 'Rita Removed was removed.' }).waitFor();
      assert.equal(
        (await members()).find((m) => m._id === rita.userId),
        undefined,
      );
      const core = (await api<{ teams: { _id: string; members: { _id: string }[] }[] }>('GET', `/api/v1/companies/${companyId}/teams`)).teams[0];
      assert.ok(!core?.members.some((m) => m._id === rita.userId), 'she left the team too');
      // the owner's own row offers neither
      assert.equal(await region.getByRole('button', { name: 'Remove Olive Owner' }).count(), 0);
    });
  });

  test('invitations: invite with a role and a team, copy the link (no mail set up), revoke', async () => {
    const design = await addTeam(t.services, companyId, 'Design', [t.tenant.userId]);
    await asOwner('invitations', async (page, confirmations) => {
      const region = page.getByRole('region', { name: 'Invitations' });
      await region.getByRole('textbox', { name: 'Email to invite' }).fill('nia@acme.test');
      await region.getByRole('combobox', { name: 'Role' }).selectOption({ label: 'Admin' });
      await region.getByRole('group', { name: 'Also join these teams' }).getByRole('checkbox', { name: 'Design' }).check();
      await region.getByRole('button', { name: 'Send invitation' }).click();
      const shown = region.getByRole('group', { name: 'Invitation link for nia@acme.test' });
      await shown.getByText('No mail is set up on this server').waitFor();
      const url = await shown.getByRole('textbox').inputValue();
      assert.match(url, new RegExp(`^${baseURL}/invitations#tbi_`));
      await shown.getByRole('button', { name: 'Copy' }).click();
      await shown.getByRole('status').filter({ hasText: 'Link copied.' }).waitFor();
      assert.equal(await page.evaluate('navigator.clipboard.readText()'), url);
      await region.getByRole('list', { name: 'Invitations' }).getByRole('listitem').filter({ hasText: 'nia@acme.test' }).filter({ hasText: 'Admin' }).waitFor();
      await axe(page, 'the members page with an invitation link');

      // the link is the real one: it names the role, and the teams are the ones ticked
      const token = url.split('#')[1] ?? '';
      const preview = await api<{ email: string; role: string }>('GET', `/api/v1/invitations/${token}`);
      assert.deepEqual([preview.email, preview.role], ['nia@acme.test', 'admin']);
      const open = (await api<{ invitations: { email: string; teams: string[] }[] }>('GET', `/api/v1/companies/${companyId}/invitations`)).invitations;
      assert.deepEqual(
        open.map((i) => [i.email, i.teams]),
        [['nia@acme.test', [design]]],
      );

      await shown.getByRole('button', { name: 'Done' }).click();
      await shown.waitFor({ state: 'detached' });
      await region.getByRole('button', { name: 'Revoke the invitation of nia@acme.test' }).click();
      await region.getByText('No pending invitations.').waitFor();
      assert.deepEqual(confirmations, ['Revoke the invitation of nia@acme.test? Its link stops working.']);
      await api('GET', `/api/v1/invitations/${token}`, undefined, 404);
    });
  });

  test('teams: create, rename, add and remove a member', async () => {
    const lea = await person('Lea Lead');
    await asOwner('teams', async (page, confirmations) => {
      await page.getByRole('navigation', { name: 'Administration sections' }).getByRole('link', { name: 'Teams' }).click();
      const region = page.getByRole('region', { name: 'Teams' });
      await region.getByRole('textbox', { name: 'New team name' }).fill('Ops');
      await region.getByRole('button', { name: 'Create team' }).click();
      const ops = region.getByRole('region', { name: 'Team Ops' });
      await ops.waitFor();
      await axe(page, 'the teams page');

      await ops.getByRole('button', { name: 'Rename team Ops' }).click();
      await ops.getByRole('textbox', { name: 'Name of team Ops' }).fill('Platform');
      await ops.getByRole('button', { name: 'Save' }).click();
      const platform = region.getByRole('region', { name: 'Team Platform' });
      await platform.waitFor();

      await platform.getByRole('combobox', { name: 'Add a member to Platform' }).selectOption({ label: `Lea Lead (${lea.email})` });
      await platform.getByRole('button', { name: 'Add' }).click();
      await platform.getByRole('list', { name: 'Members of Platform' }).getByText('Lea Lead').waitFor();
      const teams = async () =>
        (await api<{ teams: { name: string; members: { fullName: string }[] }[] }>('GET', `/api/v1/companies/${companyId}/teams`)).teams;
      assert.deepEqual(
        (await teams()).find((team) => team.name === 'Platform')?.members.map((m) => m.fullName),
        ['Olive Owner', 'Lea Lead'],
      );

      await platform.getByRole('button', { name: 'Remove Lea Lead from Platform' }).click();
      await platform.getByRole('list', { name: 'Members of Platform' }).getByText('Lea Lead').waitFor({ state: 'detached' });
      assert.deepEqual(confirmations, ['Remove Lea Lead from Platform? They lose its boards unless they are a company owner or admin.']);
      assert.deepEqual(
        (await teams()).find((team) => team.name === 'Platform')?.members.map((m) => m.fullName),
        ['Olive Owner'],
      );
    });
  });

  test('webhooks: create with the secret shown once, deliveries with status, redeliver, rotate, delete', async () => {
    const receiver: Receiver = await startReceiver(() => 204);
    try {
      await asOwner('webhooks', async (page, confirmations) => {
        await page.getByRole('navigation', { name: 'Administration sections' }).getByRole('link', { name: 'Webhooks' }).click();
        const region = page.getByRole('region', { name: 'Webhooks' });
        await region.getByText('No webhooks yet.').waitFor();
        await region.getByRole('textbox', { name: 'Payload URL' }).fill(receiver.url);
        await region.getByRole('textbox', { name: 'Events' }).fill('list.*, card.created');
        await region.getByRole('button', { name: 'Create webhook' }).click();
        const shown = region.getByRole('group', { name: `Signing secret of ${receiver.url}` });
        const secret = await shown.getByRole('textbox').inputValue();
        assert.match(secret, /^whsec_/);
        await shown.getByRole('button', { name: 'Copy' }).click();
        await shown.getByRole('status').filter({ hasText: 'Secret copied.' }).waitFor();
        assert.equal(await page.evaluate('navigator.clipboard.readText()'), secret);
        await region.getByRole('listitem').filter({ hasText: 'Events: list.* card.created' }).waitFor();
        await axe(page, 'the webhooks page with a new secret');
        await shown.getByRole('button', { name: 'Done' }).click();
        await shown.waitFor({ state: 'detached' });
        assert.equal(await page.getByText(secret).count(), 0);

        // a real event reaches the receiver, signed with the secret the page showed
        const board = await api<{ board: { _id: string } }>('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Hooks' });
        const list = await api<{ list: { _id: string } }>('POST', '/api/v1/lists', { board: board.board._id, name: 'Inbox' });
        await api('POST', '/api/v1/cards', { list: list.list._id, name: 'Ping' });
        await receiver.until((r) => r.length >= 2, 20_000, 'list.created and card.created');
        const verified = receiver.verified(secret) as { type: string }[];
        assert.deepEqual(
          verified.map((event) => event.type),
          ['list.created', 'card.created'],
        );

        await region.getByRole('link', { name: `Deliveries of ${receiver.url}` }).click();
        const deliveries = page.getByRole('region', { name: `Deliveries of ${receiver.url}` });
        const cardRow = deliveries.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'card.created' }) });
        await cardRow
          .filter({ hasText: 'Delivered' })
          .filter({ has: page.getByRole('cell', { name: '204', exact: true }) })
          .waitFor();
        await deliveries
          .getByRole('row')
          .filter({ has: page.getByRole('rowheader', { name: 'list.created' }) })
          .filter({ hasText: 'Delivered' })
          .waitFor();
        await axe(page, 'the deliveries page');

        const firstId = receiver.received[1]?.headers['webhook-id'];
        await cardRow.getByRole('button', { name: /^Redeliver card\.created of / }).click();
        await deliveries.getByRole('status').filter({ hasText: 'card.created will be delivered again.' }).waitFor();
        await receiver.until((r) => r.length >= 3, 20_000, 'the redelivery');
        assert.equal(receiver.received[2]?.headers['webhook-id'], firstId, 'the same delivery, sent again');
        await cardRow
          .filter({ has: page.getByRole('cell', { name: '2', exact: true }) })
          .filter({ hasText: 'Delivered' })
          .waitFor();

        // rotate: a new secret shown once, which signs from now on
        await page.getByRole('link', { name: 'Back to webhooks' }).click();
        await region.getByRole('button', { name: `Rotate secret of ${receiver.url}` }).click();
        const rotated = await region
          .getByRole('group', { name: `Signing secret of ${receiver.url}` })
          .getByRole('textbox')
          .inputValue();
        assert.match(rotated, /^whsec_/);
        assert.notEqual(rotated, secret);
        await api('POST', '/api/v1/lists', { board: board.board._id, name: 'After rotation' });
        await receiver.until((r) => r.length >= 4, 20_000, 'a delivery after the rotation');
        receiver.verified(rotated, receiver.received.slice(3));
        await region.getByRole('button', { name: 'Done' }).click();

        // disable and enable again (a webhook the service disabled after failing for days comes back so)
        const hooks = (await api<{ webhooks: { _id: string; enabled: boolean }[] }>('GET', `/api/v1/webhooks?companyId=${companyId}`)).webhooks;
        const enabled = async () => (await api<{ webhook: { enabled: boolean } }>('GET', `/api/v1/webhooks/${hooks[0]?._id}`)).webhook.enabled;
        await region.getByRole('button', { name: `Disable the webhook ${receiver.url}` }).click();
        await region.getByRole('listitem').filter({ hasText: receiver.url }).filter({ hasText: 'Disabled' }).waitFor();
        assert.equal(await enabled(), false);
        await region.getByRole('button', { name: `Enable the webhook ${receiver.url}` }).click();
        await region.getByRole('listitem').filter({ hasText: receiver.url }).filter({ hasText: 'Enabled' }).waitFor();
        assert.equal(await enabled(), true);

        await region.getByRole('button', { name: `Delete the webhook ${receiver.url}` }).click();
        await region.getByText('No webhooks yet.').waitFor();
        assert.deepEqual(confirmations, [
          `Rotate the secret of ${receiver.url}? For 24 hours deliveries are signed with the new and the old secret.`,
          `Delete the webhook ${receiver.url}? It receives no more events, and its deliveries are deleted.`,
        ]);
        await api('GET', `/api/v1/webhooks/${hooks[0]?._id}`, undefined, 404);
      });
    } finally {
      await receiver.close();
    }
  });
});
