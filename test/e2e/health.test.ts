import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../support/harness.ts';

describe('health and authentication surface', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp('sqlite');
  });
  after(() => t.dispose());

  it('answers /healthz and /readyz without a key', async () => {
    const live = await t.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(live.statusCode, 200);
    assert.deepEqual(live.json(), { status: 'ok' });
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.deepEqual(ready.json(), { status: 'ready' });
  });

  it('answers unknown routes with the contract error body', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/nope' });
    assert.equal(res.statusCode, 404);
    const body = res.json();
    assert.equal(body.code, 'not_found');
    assert.equal(typeof body.message, 'string');
    assert.equal(body.requestId, res.headers['x-request-id']);
  });
});
