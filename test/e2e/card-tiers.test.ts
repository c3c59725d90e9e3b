import assert from 'node:assert/strict';
import { multipart, seedBoard } from '../support/fixtures.ts';
import { bearer } from '../support/harness.ts';
import { describeTiers } from '../support/tiers.ts';

describeTiers('card and attachment routes', {
  engines: ['sqlite'],
  given: (t) => seedBoard(t.services, t.tenant, { lists: 1, labels: 1 }),
  calls: async (api, board, t) => {
    const card = (await api('POST', '/api/v1/cards', { list: board.listIds[0], name: 'c' })).json().card;
    await api('GET', `/api/v1/cards/${card._id}`);
    await api('POST', `/v2/cards/${card._id}/labels`, { labels: board.labelIds });
    const form = multipart({}, { filename: 'a.txt', contentType: 'text/plain', content: Buffer.from('a') });
    const upload = await t.app.inject({
      method: 'POST',
      url: `/api/v1/cards/${card._id}/attachments`,
      headers: { ...bearer(t.tenant.apiKey), ...form.headers },
      payload: form.payload,
    });
    assert.equal(upload.statusCode, 201, upload.body);
    const att = upload.json().attachment;
    await api('GET', att.url);
    await api('PATCH', `/api/v1/cards/${card._id}/attachments/${att._id}`, { name: 'b' });
    await api('DELETE', `/api/v1/cards/${card._id}/attachments/${att._id}`);
  },
  expected: [
    ['POST /api/v1/cards', 'medium'],
    ['GET /api/v1/cards/:cardId', 'very-low'],
    ['POST /v2/cards/:cardId/labels', 'low'],
    ['POST /api/v1/cards/:cardId/attachments', 'medium'],
    ['GET /api/v1/cards/:cardId/attachments/:attachmentId/file', 'very-low'],
    ['PATCH /api/v1/cards/:cardId/attachments/:attachmentId', 'low'],
    ['DELETE /api/v1/cards/:cardId/attachments/:attachmentId', 'low'],
  ],
});
