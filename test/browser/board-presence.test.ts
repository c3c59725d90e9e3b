/**
 * Two people on one board in two browsers see each other in the board header ("viewing now"), and
 * see the other go when their page closes: on SQLite with one server, and on PostgreSQL with two
 * server instances sharing Redis, each browser on its own instance. Prints how long a join and a
 * leave take to show in the other browser.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from '@playwright/test';
import { type App, buildApp } from '../../src/app.ts';
import { chromiumMissing, contextWithKey, keepFailure, launch } from '../support/browser.ts';
import { addMember } from '../support/fixtures.ts';
import { buildTestApp, ENGINES, REDIS_URL, type TestApp } from '../support/harness.ts';
import { apiCaller, axe, makeBoard } from './board-support.ts';

async function listening(app: App): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

const viewers = (page: Page) => page.getByRole('group', { name: /viewing now/ });

for (const engine of ENGINES) {
  const across = engine === 'postgres';
  describe(`who is viewing a board, in two browsers [${engine}${across ? ', two instances and Redis' : ''}]`, { skip: chromiumMissing }, () => {
    let t: TestApp;
    let other: App | undefined;
    let baseA: string;
    let baseB: string;
    let browser: Browser;
    let boardId: string;
    let miaKey: string;

    before(async () => {
      const redis = across ? { redisUrl: REDIS_URL, redisKeyPrefix: `test-${randomBytes(4).toString('hex')}:` } : {};
      t = await buildTestApp(engine, { config: redis });
      baseA = await listening(t.app);
      if (across) {
        other = await buildApp({ config: { ...t.config, databaseUrl: t.url }, rateLimiter: null, logger: false });
        await other.ready();
        baseB = await listening(other);
      } else baseB = baseA;
      const api = apiCaller(
        () => baseA,
        () => t.tenant.apiKey,
      );
      ({ boardId } = await makeBoard(api, t.tenant.teamId, 'Launch plan', { Todo: ['Write the post'] }));
      miaKey = (
        await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: `mia-${engine}@acme.test`, fullName: 'Mia Member' })
      ).apiKey;
      browser = await launch();
    });
    after(async () => {
      await browser?.close();
      await other?.close();
      await t?.dispose();
    });

    test('each sees the other while both have the board open, and sees the other leave', async (context) => {
      const olive = await contextWithKey(browser, baseA, t.tenant.apiKey);
      const mia = await contextWithKey(browser, baseB, miaKey);
      const oliveStream = (page: Page) => page.waitForResponse((response) => response.url().endsWith(`/boards/${boardId}/events?presence=true`));
      const olivePage = await olive.newPage();
      let failed = true;
      try {
        const opened = oliveStream(olivePage);
        await olivePage.goto(`/boards/${boardId}`);
        await olivePage.getByRole('heading', { name: 'Launch plan' }).waitFor();
        await opened;
        // alone, nobody else is shown
        await viewers(olivePage).waitFor({ state: 'detached' });

        const miaPage = await mia.newPage();
        const miaOpened = oliveStream(miaPage);
        await miaPage.goto(`/boards/${boardId}`);
        await miaOpened;
        const joined = performance.now();
        await viewers(olivePage).getByText('Mia Member').waitFor();
        const joinMs = performance.now() - joined;
        await viewers(miaPage).getByText('Olive Owner').waitFor();
        await axe(olivePage, 'the board header with someone viewing');

        const left = performance.now();
        await miaPage.close();
        await viewers(olivePage).waitFor({ state: 'detached' });
        const leaveMs = performance.now() - left;
        console.log(
          `# presence between two browsers [${engine}${across ? ', two instances, Redis' : ''}]: a join shows ${joinMs.toFixed(0)} ms after the stream opened, a leave ${leaveMs.toFixed(0)} ms after the page closed`,
        );
        failed = false;
      } finally {
        await keepFailure(context.name, olive, olivePage, failed);
        await olive.close();
        await mia.close();
      }
    });
  });
}
