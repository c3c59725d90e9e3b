/**
 * Checks of the rate-limit tier each route counts against: the app gets a limiter that records what
 * the rate-limit hook asks it (key, route template, tier), and a test compares that with the tier
 * column of the contract.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Tier } from '../../src/config.ts';
import type { Engine } from '../../src/storage/database-url.ts';
import { type Api, apiClient, buildTestApp, type RecordingLimiter, recordingLimiter, type TestApp } from './harness.ts';

/** A route template and the tier it counts against, e.g. `['PATCH /api/v1/cards/:cardId', 'low']`. */
export type RouteTier = readonly [route: string, tier: Tier];

/**
 * The route template and tier of every request made while `calls` runs, in order. Requests made
 * through the `api` handed to `calls` must succeed, so each tier is that of an operation that ran;
 * every request must count against one and the same API key.
 */
export async function tiersOf(limiter: RecordingLimiter, api: Api, calls: (api: Api) => Promise<unknown>): Promise<RouteTier[]> {
  const from = limiter.seen.length;
  await calls(async (method, url, payload) => {
    const res = await api(method, url, payload);
    assert.ok(res.statusCode < 300, `${method} ${url} → ${res.statusCode} ${res.body}`);
    return res;
  });
  const seen = limiter.seen.slice(from);
  const apiKeyId = seen[0]?.apiKeyId;
  assert.ok(apiKeyId, 'the hook is given the key of the request');
  assert.ok(
    seen.every((r) => r.apiKeyId === apiKeyId),
    "every request counts against the caller's one key",
  );
  return seen.map((r) => [r.route, r.tier]);
}

/**
 * One suite per engine over an app with a recording limiter, as the tenant's owner: `given`
 * prepares (its requests do not count), then the requests of `calls` must count against `expected`.
 */
export function describeTiers<Given>(
  routes: string,
  spec: {
    engines: readonly Engine[];
    given?: (t: TestApp, api: Api) => Promise<Given>;
    calls: (api: Api, given: Given, t: TestApp) => Promise<unknown>;
    expected: readonly RouteTier[];
  },
): void {
  for (const engine of spec.engines) {
    describe(`${routes} reach the rate-limit hook with their contract tiers [${engine}]`, () => {
      let t: TestApp;
      const limiter = recordingLimiter();
      before(async () => {
        t = await buildTestApp(engine, { rateLimiter: limiter });
      });
      after(() => t.dispose());

      it('passes the key, the route template and the contract tier of every operation', async () => {
        const api = apiClient(t, t.tenant.apiKey);
        const given = (await spec.given?.(t, api)) as Given;
        assert.deepEqual(await tiersOf(limiter, api, (api) => spec.calls(api, given, t)), spec.expected);
      });
    });
  }
}
