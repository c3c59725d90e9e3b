import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type App, buildApp } from '../../src/app.ts';
import { openTestStorage, type TestStorage, testConfig } from '../support/harness.ts';

/** The app over a fresh SQLite database, serving the web build in `webDir`. */
async function appWith(webDir: string | false): Promise<{ app: App; storage: TestStorage }> {
  const storage = await openTestStorage('sqlite');
  const app = await buildApp({ config: testConfig(), storage: storage.storage, rateLimiter: null, logger: false, webDir });
  await app.ready();
  return { app, storage };
}

describe('the web app served at /', () => {
  let dir: string;
  let served: { app: App; storage: TestStorage };
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'taskboard-web-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Taskboard</title><script type="module" src="/assets/index-abc123.js"></script>');
    writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log("app")');
    writeFileSync(join(dir, 'sw.js'), 'self.addEventListener("fetch", () => {});');
    writeFileSync(join(dir, 'manifest.webmanifest'), '{"name":"Taskboard"}');
    // what web/build/page-preloads.ts writes: each page address's chunks beyond the entry's
    writeFileSync(
      join(dir, 'page-preloads.json'),
      JSON.stringify({
        '/boards/:boardId': { scripts: ['/assets/BoardPage-b1.js', '/assets/dnd-d1.js'], styles: ['/assets/BoardPage-b1.css'] },
        '/sign-in': { scripts: ['/assets/SignInPage-s1.js'], styles: [] },
        '/admin/*': { scripts: ['/assets/AdminPage-a1.js'], styles: [] },
      }),
    );
    mkdirSync(join(dir, 'icons'));
    writeFileSync(join(dir, 'icons', 'pwa-192x192.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    served = await appWith(dir);
  });
  after(async () => {
    await served.app.close();
    await served.storage.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers / and the app routes with the page: uncached, with a strict CSP of its own', async () => {
    for (const url of ['/', '/boards', '/boards/6b0a9d4401933c2c394bebc9?card=1&q=x', '/sign-in', '/setup']) {
      const res = await served.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.match(res.body, /<title>Taskboard<\/title>/);
      assert.equal(res.headers['cache-control'], 'no-cache');
      const csp = String(res.headers['content-security-policy']);
      assert.match(csp, /default-src 'self'/);
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /connect-src 'self'/);
      assert.doesNotMatch(csp, /unsafe-inline/);
    }
  });

  it("names a page's own chunks in a Link header, so they download beside the entry chunk", async () => {
    const linkOf = async (url: string) => (await served.app.inject({ method: 'GET', url })).headers.link;
    const board = '</assets/BoardPage-b1.js>; rel=modulepreload, </assets/dnd-d1.js>; rel=modulepreload, </assets/BoardPage-b1.css>; rel=preload; as=style';
    assert.equal(await linkOf('/boards/6b0a9d4401933c2c394bebc9'), board);
    assert.equal(await linkOf('/boards/6b0a9d4401933c2c394bebc9/?view=table'), board);
    assert.equal(await linkOf('/sign-in?next=%2Fboards'), '</assets/SignInPage-s1.js>; rel=modulepreload');
    assert.equal(await linkOf('/admin'), '</assets/AdminPage-a1.js>; rel=modulepreload');
    assert.equal(await linkOf('/admin/companies/1'), '</assets/AdminPage-a1.js>; rel=modulepreload');
    // the pages in the entry chunk, and addresses that are no page, name nothing
    for (const url of ['/', '/boards', '/boards/1/cards', '/setup', '/sign-in/x']) assert.equal(await linkOf(url), undefined, url);
  });

  it('serves hashed assets with a long immutable cache', async () => {
    const res = await served.app.inject({ method: 'GET', url: '/assets/index-abc123.js' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['cache-control']), /max-age=31536000/);
    assert.match(String(res.headers['cache-control']), /immutable/);
    assert.equal(res.body, 'console.log("app")');
  });

  it('serves the manifest, the service worker and the icons: none immutable, the worker under the page CSP', async () => {
    const worker = await served.app.inject({ method: 'GET', url: '/sw.js' });
    assert.equal(worker.statusCode, 200);
    assert.match(String(worker.headers['content-type']), /^text\/javascript/);
    assert.equal(worker.headers['cache-control'], 'no-cache');
    // the API's `default-src 'none'` would forbid the worker's own fetches
    assert.match(String(worker.headers['content-security-policy']), /connect-src 'self'/);
    const again = await served.app.inject({ method: 'GET', url: '/sw.js', headers: { 'if-none-match': String(worker.headers.etag) } });
    assert.equal(again.statusCode, 304);
    const manifest = await served.app.inject({ method: 'GET', url: '/manifest.webmanifest' });
    assert.equal(manifest.statusCode, 200);
    assert.match(String(manifest.headers['content-type']), /^application\/manifest\+json/);
    assert.equal(manifest.headers['cache-control'], 'no-cache');
    assert.equal(manifest.json().name, 'Taskboard');
    const icon = await served.app.inject({ method: 'GET', url: '/icons/pwa-192x192.png' });
    assert.equal(icon.statusCode, 200);
    assert.equal(icon.headers['content-type'], 'image/png');
    assert.doesNotMatch(String(icon.headers['cache-control']), /immutable/);
    // the page by the name the worker precaches it under
    const page = await served.app.inject({ method: 'GET', url: '/index.html' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<title>Taskboard<\/title>/);
    assert.equal((await served.app.inject({ method: 'GET', url: '/icons/missing.png' })).statusCode, 404);
  });

  it('keeps the API paths and missing files JSON 404s, and the API its own headers', async () => {
    for (const url of ['/api/v1/nope', '/api', '/v2/nope', '/docs/nope', '/metrics', '/assets/missing.js', '/favicon.ico', '/openapi.json/x']) {
      const res = await served.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 404, url);
      assert.equal(res.json().code, 'not_found', url);
    }
    const me = await served.app.inject({ method: 'GET', url: '/api/v1/me' });
    assert.equal(me.statusCode, 401);
    assert.match(String(me.headers['content-security-policy']), /default-src 'none'/);
    assert.equal((await served.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    assert.equal((await served.app.inject({ method: 'GET', url: '/openapi.json' })).statusCode, 200);
  });

  it("answers an API path parameter over the router's limit as the router does (400), not with the page", async () => {
    const res = await served.app.inject({ method: 'GET', url: `/api/v1/cards/${'a'.repeat(5000)}`, headers: { authorization: 'Bearer tb_x' } });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(
      res.json().details?.map((detail: { field: string }) => detail.field),
      ['params.cardId'],
    );
  });

  it('serves nothing at / without a build', async () => {
    const bare = await appWith(join(dir, 'no-build-here'));
    try {
      const res = await bare.app.inject({ method: 'GET', url: '/' });
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().message, 'Route GET / not found');
    } finally {
      await bare.app.close();
      await bare.storage.dispose();
    }
  });
});
