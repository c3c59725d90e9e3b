/**
 * What a request rarely needs is loaded on its first use (docs/benchmarks.md, memory at rest): a
 * server started without mail, webhooks, single sign-on, exports or backups does not hold their
 * libraries. Every package the process resolves is noted while the command that serves is loaded
 * (`taskboard serve`'s modules, the backup's among them) and a server is built and readied.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

const resolved = new Set<string>();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const result = nextResolve(specifier, context);
    const found = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(result.url);
    if (found?.[1]) resolved.add(found[1]);
    return result;
  },
});

const LOADED_ON_USE = [
  'nodemailer',
  'undici',
  'openid-client',
  'yazl',
  'csv-stringify',
  'tar-stream',
  'ioredis',
  'otplib',
  'qrcode',
  '@simplewebauthn/server',
  'ldapts',
  'ical-generator',
];

describe('libraries loaded on first use', () => {
  const dir = mkdtempSync(join(tmpdir(), 'taskboard-loaded-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a server without mail, webhooks, sign-on, exports or backups holds none of theirs', async () => {
    await import('../../src/cli/main.ts');
    const { loadConfig } = await import('../../src/config.ts');
    const { buildApp } = await import('../../src/app.ts');
    const config = loadConfig({ DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, UPLOAD_DIR: join(dir, 'uploads'), LOG_LEVEL: 'silent' });
    const app = await buildApp({ config });
    try {
      await app.ready();
      assert.ok(resolved.has('fastify'), 'the watch sees the packages the server loads');
      assert.deepEqual(
        LOADED_ON_USE.filter((name) => resolved.has(name)),
        [],
      );
    } finally {
      await app.close();
    }
  });
});
