/**
 * The installable app in Chromium: the manifest and icons as the server sends them, the service
 * worker controlling the page, Chromium's own installability check, a board opened once and then
 * reloaded offline (its cards as they were, the offline banner, a write refused in words, nothing
 * written), back online (fresh answers, writes work), and the update prompt of a new version, whose
 * Reload lets the new version take over and reloads every tab into it.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import type { BrowserContext, Page, Worker } from '@playwright/test';
import { ARTIFACTS, chromiumMissing } from '../support/browser.ts';
import { axe, boardSuite, cardIn } from './board-support.ts';

// page.evaluate's callbacks run in the page (the suite's own type check has no DOM library)
interface Registration {
  waiting: object | null;
  active: { state: string } | null;
  update(): Promise<unknown>;
}
declare const navigator: { serviceWorker: { controller: { scriptURL: string } | null; getRegistration(): Promise<Registration | undefined> } };
declare const caches: { keys(): Promise<string[]>; has(name: string): Promise<boolean>; open(name: string): Promise<{ keys(): Promise<unknown[]> }> };

/** Width and height of a PNG, from its IHDR chunk. */
function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  assert.equal(view.getUint32(0), 0x89504e47, 'a PNG signature');
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/** Waits until the service worker controls `page` and has kept `count` answers in the cache named `cache`. */
async function keptIn(page: Page, cache: string, count = 1) {
  await until(
    () =>
      page.evaluate(
        async ([name, atLeast]) =>
          navigator.serviceWorker.controller !== null && (await caches.has(name)) && (await (await caches.open(name)).keys()).length >= atLeast,
        [cache, count] as const,
      ),
    `${count} answers kept in ${cache}`,
  );
}

/** Waits until a service worker controls `page`. */
const controlled = (page: Page) => page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { polling: 100 });

/**
 * The app behind a proxy that can serve the next build's worker, as a server restarted on a new build
 * does: once `serveNextVersion` is called, /sw.js answers the build's worker with a line more. The
 * browser's update check revalidates the worker it holds; the proxy asks the app afresh, or the app's
 * 304 would leave the "next version" a worker of one comment, with no message listener to take a
 * SKIP_WAITING (which is why the Reload once seemed not to take over in Chromium).
 */
async function nextVersionProxy(upstream: string): Promise<{ url: string; serveNextVersion(): void; close(): Promise<void> }> {
  let nextVersion = false;
  const proxy = createServer((request, reply) => {
    void (async () => {
      const worker = nextVersion && request.url === '/sw.js';
      const dropped = new Set(['host', 'accept-encoding', ...(worker ? ['if-none-match', 'if-modified-since'] : [])]);
      const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !dropped.has(name))) as Record<string, string>;
      const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
      const answer = await fetch(`${upstream}${request.url}`, {
        method: request.method ?? 'GET',
        headers,
        ...(hasBody ? { body: Readable.toWeb(request) as ReadableStream, duplex: 'half' } : {}),
        redirect: 'manual',
      });
      const answered = Object.fromEntries([...answer.headers].filter(([name]) => name !== 'content-length' && name !== 'content-encoding'));
      if (worker) {
        assert.equal(answer.status, 200, 'the app sends its worker');
        delete answered.etag;
        delete answered['last-modified'];
        reply.writeHead(200, answered).end(`${await answer.text()}\n// the next version\n`);
        return;
      }
      reply.writeHead(answer.status, answered);
      if (answer.body) Readable.fromWeb(answer.body as ReadableStream<Uint8Array>).pipe(reply);
      else reply.end();
    })().catch(() => reply.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    serveNextVersion: () => {
      nextVersion = true;
    },
    close: async () => {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}

/** The service worker of `context` that is its registration's waiting one. */
async function waitingWorker(context: BrowserContext): Promise<Worker | undefined> {
  for (const worker of context.serviceWorkers()) {
    const isWaiting = await worker.evaluate(() => {
      const scope = globalThis as unknown as { registration: { waiting: unknown }; serviceWorker: unknown };
      return scope.registration.waiting === scope.serviceWorker;
    });
    if (isWaiting) return worker;
  }
  return undefined;
}

describe('the installable app', { skip: chromiumMissing }, () => {
  const suite = boardSuite();
  const boardCardNames = async (boardId: string) =>
    (await suite.api<{ board: { lists: { cards: { name: string }[] }[] } }>('GET', `/api/v1/boards/${boardId}/card-faces`)).board.lists.flatMap((list) =>
      list.cards.map((card) => card.name),
    );

  test('the server sends the manifest, its icons and the worker with the right headers', async () => {
    const manifestAnswer = await fetch(`${suite.baseURL}/manifest.webmanifest`);
    assert.equal(manifestAnswer.status, 200);
    assert.match(String(manifestAnswer.headers.get('content-type')), /^application\/manifest\+json/);
    assert.equal(manifestAnswer.headers.get('cache-control'), 'no-cache');
    const manifest = (await manifestAnswer.json()) as {
      name: string;
      short_name: string;
      start_url: string;
      display: string;
      theme_color: string;
      background_color: string;
      icons: { src: string; sizes: string; type: string; purpose?: string }[];
    };
    assert.equal(manifest.name, 'Taskboard');
    assert.equal(manifest.short_name, 'Taskboard');
    assert.equal(manifest.start_url, '/');
    assert.equal(manifest.display, 'standalone');
    assert.match(manifest.theme_color, /^#[0-9a-f]{6}$/i);
    assert.match(manifest.background_color, /^#[0-9a-f]{6}$/i);
    // what installing asks: a 192 and a 512 px icon for any use, and a maskable one
    const purposes = (icon: { purpose?: string }) => (icon.purpose ?? 'any').split(' ');
    for (const [size, purpose] of [
      ['192x192', 'any'],
      ['512x512', 'any'],
      ['512x512', 'maskable'],
    ] as const) {
      const icon = manifest.icons.find((one) => one.sizes === size && one.type === 'image/png' && purposes(one).includes(purpose));
      assert.ok(icon, `a ${purpose} PNG icon of ${size}`);
      const answer = await fetch(new URL(icon.src, suite.baseURL));
      assert.equal(answer.status, 200, icon.src);
      assert.equal(answer.headers.get('content-type'), 'image/png');
      const { width, height } = pngSize(new Uint8Array(await answer.arrayBuffer()));
      assert.equal(`${width}x${height}`, size, `${icon.src} is as large as it says`);
    }

    const worker = await fetch(`${suite.baseURL}/sw.js`);
    assert.equal(worker.status, 200);
    assert.match(String(worker.headers.get('content-type')), /^text\/javascript/);
    // never immutable: a browser must see a new worker at once
    assert.equal(worker.headers.get('cache-control'), 'no-cache');
    const csp = String(worker.headers.get('content-security-policy'));
    assert.match(csp, /connect-src 'self'/, 'the worker may fetch the app and the API');
    assert.match(csp, /script-src 'self'/);
    const etag = worker.headers.get('etag');
    assert.ok(etag);
    assert.equal((await fetch(`${suite.baseURL}/sw.js`, { headers: { 'If-None-Match': etag } })).status, 304);
    // the page under the name the worker precaches it by
    const page = await fetch(`${suite.baseURL}/index.html`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<link rel="manifest" href="\/manifest.webmanifest">/);
  });

  test('installable; a board opened once opens offline, refuses writes in words, and comes back online', async () => {
    const { boardId, cards } = await suite.makeBoard('Trip', { 'To do': ['Book the train', 'Pack'], Done: ['Plan the route'] });
    await suite.onPage('installable-offline', { viewport: { width: 1280, height: 800 }, serviceWorkers: 'allow' }, async (page, context) => {
      await page.goto(`/boards/${boardId}`);
      await cardIn(page, 'To do', 'Book the train').waitFor();
      await keptIn(page, 'taskboard-api-boards');
      await keptIn(page, 'taskboard-api-me');
      await keptIn(page, 'taskboard-api-labels');

      // Changed elsewhere while this browser is offline: the offline board shows what it kept.
      await context.setOffline(true);
      await suite.api('PATCH', `/api/v1/cards/${cards.get('Pack')}`, { name: 'Pack the bags' });
      await page.reload();
      await cardIn(page, 'To do', 'Book the train').waitFor();
      await cardIn(page, 'Done', 'Plan the route').waitFor();
      await cardIn(page, 'To do', 'Pack').waitFor();
      assert.equal(await cardIn(page, 'To do', 'Pack the bags').count(), 0, 'the kept copy, not a fresh read');
      await page.getByRole('status').filter({ hasText: 'Offline: changes are paused' }).waitFor();
      await axe(page, 'the board offline');

      // A write is refused in words, put back, and nothing reaches the server.
      await page.getByRole('button', { name: 'Add a card to To do' }).click();
      await page.getByRole('textbox', { name: 'Card name' }).fill('Buy sunscreen');
      await page.getByRole('textbox', { name: 'Card name' }).press('Enter');
      await page.getByRole('alert').filter({ hasText: 'Not saved: You are offline. Try again once the connection is back.' }).waitFor();
      assert.equal(await cardIn(page, 'To do', 'Buy sunscreen').count(), 0, 'the refused card is put back');
      assert.ok(!(await boardCardNames(boardId)).includes('Buy sunscreen'), 'nothing was written');

      // Back online: the banner goes, the board reads afresh, and writes work again.
      await context.setOffline(false);
      await page.getByRole('status').filter({ hasText: 'Offline: changes are paused' }).waitFor({ state: 'detached' });
      await page.reload();
      await cardIn(page, 'To do', 'Pack the bags').waitFor();
      await page.getByRole('button', { name: 'Add a card to To do' }).click();
      await page.getByRole('textbox', { name: 'Card name' }).fill('Buy sunscreen');
      await page.getByRole('textbox', { name: 'Card name' }).press('Enter');
      await cardIn(page, 'To do', 'Buy sunscreen').waitFor();
      await until(async () => (await boardCardNames(boardId)).includes('Buy sunscreen'), 'the card written once back online');
      // Chromium's own verdict on installing the app: no error, the manifest read without one
      const cdp = await context.newCDPSession(page);
      const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as { installabilityErrors: { errorId: string }[] };
      // Playwright's contexts are incognito windows, where Chromium offers no install: that is the browser's, not the app's
      assert.deepEqual(
        installabilityErrors.map((error) => error.errorId).filter((id) => id !== 'in-incognito'),
        [],
      );
      const { errors } = (await cdp.send('Page.getAppManifest')) as { errors: { message: string }[] };
      assert.deepEqual(
        errors.map((error) => error.message),
        [],
      );
      await cdp.detach();
    });
  });

  test('the live streams start once the page has loaded, at a priority a load does not wait for', async () => {
    const { boardId } = await suite.makeBoard('Streams', { Ideas: ['First idea'] });
    await suite.onPage('installable-streams', { serviceWorkers: 'allow' }, async (page, context) => {
      // The browser's own record of each stream request: when, and at what priority. Lighthouse
      // counts a load finished once no High or VeryHigh request is in flight; a stream never ends.
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      const order: string[] = [];
      const priorities: string[] = [];
      page.on('load', () => order.push('load'));
      cdp.on('Network.requestWillBeSent', (event: { request: { url: string; initialPriority: string } }) => {
        const path = new URL(event.request.url).pathname;
        if (!path.endsWith('/events') && !path.endsWith('/notifications/stream')) return;
        order.push(path);
        priorities.push(event.request.initialPriority);
      });
      await page.goto(`/boards/${boardId}`);
      await cardIn(page, 'Ideas', 'First idea').waitFor();
      await until(async () => order.length >= 3, 'the board stream and the notifications stream requested');
      assert.equal(order[0], 'load', `the streams waited for the load: ${order.join(', ')}`);
      assert.deepEqual(order.slice(1).sort(), [`/api/v1/boards/${boardId}/events`, '/api/v1/notifications/stream']);
      assert.deepEqual(
        priorities.filter((priority) => priority === 'High' || priority === 'VeryHigh'),
        [],
        `stream priorities: ${priorities.join(', ')}`,
      );
      await cdp.detach();
    });
  });

  test('signing out forgets every answer the worker kept', async () => {
    const { boardId } = await suite.makeBoard('Private', { Ideas: ['Secret plan'] });
    await suite.onPage('installable-sign-out', { serviceWorkers: 'allow' }, async (page) => {
      await page.goto(`/boards/${boardId}`);
      await cardIn(page, 'Ideas', 'Secret plan').waitFor();
      await keptIn(page, 'taskboard-api-boards');
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL('**/sign-in');
      const kept = await page.evaluate(async () => (await caches.keys()).filter((name) => name.startsWith('taskboard-api-')));
      assert.deepEqual(kept, []);
    });
  });

  test('a new version is announced and waits for the person', async () => {
    const server = await nextVersionProxy(suite.baseURL);
    try {
      await suite.onPage('installable-update', { baseURL: server.url, serviceWorkers: 'allow' }, async (page) => {
        await page.goto('/boards');
        await page.getByRole('button', { name: 'Sign out' }).waitFor();
        await controlled(page);
        server.serveNextVersion();
        await page.evaluate(async () => void (await (await navigator.serviceWorker.getRegistration())?.update()));
        const prompt = page.getByRole('status').filter({ hasText: 'A new version is ready' });
        await prompt.waitFor();
        await axe(page, 'the update prompt');
        for (const theme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme: theme });
          for (const width of [1440, 390]) {
            await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
            await page.screenshot({ path: join(ARTIFACTS, `update-prompt-${theme}-${width}.png`), animations: 'disabled' });
          }
        }
        // nothing changes under the page until the person chooses
        assert.equal(await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.waiting !== null), true);
      });
    } finally {
      await server.close();
    }
  });

  test('Reload lets the waiting version take over and reloads every tab into it', async () => {
    const server = await nextVersionProxy(suite.baseURL);
    try {
      await suite.onPage('installable-reload', { baseURL: server.url, serviceWorkers: 'allow' }, async (page, context) => {
        const { boardId } = await suite.makeBoard('Next version', { Ideas: ['Kept card'] });
        await page.goto('/boards');
        await page.getByRole('button', { name: 'Sign out' }).waitFor();
        await controlled(page);
        // a second tab of the same app, on a board (its live stream open)
        const other = await context.newPage();
        await other.goto(`/boards/${boardId}`);
        await cardIn(other, 'Ideas', 'Kept card').waitFor();
        await controlled(other);
        for (const tab of [page, other]) await tab.evaluate(() => Object.assign(globalThis, { beforeReload: true }));

        server.serveNextVersion();
        await page.evaluate(async () => void (await (await navigator.serviceWorker.getRegistration())?.update()));
        const prompt = page.getByRole('status').filter({ hasText: 'A new version is ready' });
        await prompt.waitFor();
        const waiting = await waitingWorker(context);
        assert.ok(waiting, 'the next version waits');

        await prompt.getByRole('button', { name: 'Reload' }).click();
        // every tab reloads (nothing of the old page is left) under the next version, which is now the active one
        for (const tab of [page, other]) {
          await tab.waitForFunction(() => !('beforeReload' in globalThis) && navigator.serviceWorker.controller !== null, undefined, { polling: 100 });
        }
        assert.equal(await waiting.evaluate(() => (globalThis as unknown as { serviceWorker: { state: string } }).serviceWorker.state), 'activated');
        assert.equal(await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.waiting ?? null), null);
        await page.getByRole('button', { name: 'Sign out' }).waitFor();
        await cardIn(other, 'Ideas', 'Kept card').waitFor();
        assert.equal(await prompt.count(), 0, 'no prompt once the new version runs');
      });
    } finally {
      await server.close();
    }
  });
});

/** Polls `check` (every 50 ms, for 10 s at most) until it holds: a write the page sent reaches the server a moment after it shows. */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
