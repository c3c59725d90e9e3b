/**
 * The web benches' start: the app listening on a free port of 127.0.0.1, and Debian's Chromium with
 * a desk-sized page signed in by `key` (UTC, no tracing).
 */
import type { FastifyInstance } from 'fastify';
import { contextWithKey, launch } from '../test/support/browser.ts';

export async function servedInBrowser(app: FastifyInstance, key: string) {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const browser = await launch();
  const context = await contextWithKey(browser, base, key, { viewport: { width: 1440, height: 900 }, timezoneId: 'UTC' });
  await context.tracing.stop();
  return { base, browser, context };
}
