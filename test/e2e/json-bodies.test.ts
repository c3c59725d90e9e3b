import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, buildTestApp, type TestApp } from '../support/harness.ts';

describe('JSON bodies and CORS', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp('sqlite', { config: { cors: { origins: ['https://board.example'], maxAgeSeconds: 600 } } });
  });
  after(() => t.dispose());

  it('takes a DELETE with Content-Type: application/json and no body', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers: bearer(t.tenant.apiKey), payload: { name: 'tmp' } });
    const id = created.json().apiKey._id;
    const res = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/api-keys/${id}`,
      headers: { ...bearer(t.tenant.apiKey), 'content-type': 'application/json' },
    });
    assert.equal(res.statusCode, 200, res.body);
  });

  it('still answers 400 when a route that needs a body gets none', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers: { ...bearer(t.tenant.apiKey), 'content-type': 'application/json' } });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'validation_failed');
  });

  it('lets browsers on another origin PATCH and DELETE', async () => {
    const res = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/labels/ffffffffffffffffffffffff',
      headers: { origin: 'https://board.example', 'access-control-request-method': 'PATCH' },
    });
    assert.equal(res.statusCode, 204);
    const methods = String(res.headers['access-control-allow-methods']);
    for (const m of ['PATCH', 'DELETE']) assert.ok(methods.includes(m), methods);
  });
});
