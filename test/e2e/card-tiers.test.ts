import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { multipart, seedBoard } from '../support/fixtures.ts';
import { bearer, buildTestApp, recordingLimiter, type TestApp } from '../support/harness.ts';

describe('card and attachment routes reach the rate-limit hook with their contract tiers', () => {
  let t: TestApp;
  const limiter = recordingLimiter();
  before(async () => {
    t = await buildTestApp('sqlite', { rateLimiter: limiter });
  });
  after(() => t.dispose());

  it('passes key, route template and tier for every operation', async () => {
    const board = await seedBoard(t.services, t.tenant, { lists: 1, labels: 1 });
    const h = bearer(t.tenant.apiKey);
    const card = (await t.app.inject({ method: 'POST', url: '/api/v1/cards', headers: h, payload: { list: board.listIds[0], name: 'c' } })).json().card;
    await t.app.inject({ method: 'GET', url: `/api/v1/cards/${card._id}`, headers: h });
    await t.app.inject({ method: 'POST', url: `/v2/cards/${card._id}/labels`, headers: h, payload: { labels: board.labelIds } });
    const form = multipart({}, { filename: 'a.txt', contentType: 'text/plain', content: Buffer.from('a') });
    const att = (await t.app.inject({ method: 'POST', url: `/api/v1/cards/${card._id}/attachments`, headers: { ...h, ...form.headers }, payload: form.payload })).json().attachment;
    await t.app.inject({ method: 'GET', url: att.url, headers: h });
    await t.app.inject({ method: 'PATCH', url: `/api/v1/cards/${card._id}/attachments/${att._id}`, headers: h, payload: { name: 'b' } });
    await t.app.inject({ method: 'DELETE', url: `/api/v1/cards/${card._id}/attachments/${att._id}`, headers: h });
    const apiKeyId = limiter.seen[0]?.apiKeyId;
    assert.ok(apiKeyId);
    assert.deepEqual(limiter.seen, [
      { apiKeyId, route: 'POST /api/v1/cards', tier: 'medium' },
      { apiKeyId, route: 'GET /api/v1/cards/:cardId', tier: 'very-low' },
      { apiKeyId, route: 'POST /v2/cards/:cardId/labels', tier: 'low' },
      { apiKeyId, route: 'POST /api/v1/cards/:cardId/attachments', tier: 'medium' },
      { apiKeyId, route: 'GET /api/v1/cards/:cardId/attachments/:attachmentId/file', tier: 'very-low' },
      { apiKeyId, route: 'PATCH /api/v1/cards/:cardId/attachments/:attachmentId', tier: 'low' },
      { apiKeyId, route: 'DELETE /api/v1/cards/:cardId/attachments/:attachmentId', tier: 'low' },
    ]);
  });
});
