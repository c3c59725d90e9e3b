/**
 * One of everything, made through the API as a client would: the ids the bad-input and fuzz suites
 * put in paths and bodies, so that requests reach real records (and real storage) past the schemas.
 */
import assert from 'node:assert/strict';
import { multipart } from './fixtures.ts';
import { apiClient, bearer, type TestApp } from './harness.ts';

export interface ApiWorld {
  companyId: string;
  teamId: string;
  userId: string;
  boardId: string;
  listId: string;
  labelId: string;
  cardId: string;
  checklistId: string;
  itemId: string;
  commentId: string;
  discussionId: string;
  /** A file attachment on the card, and one on the checklist item. */
  attachmentId: string;
  itemAttachmentId: string;
  cheerId: string;
  keyId: string;
}

export async function apiWorld(t: TestApp): Promise<ApiWorld> {
  const api = apiClient(t, t.tenant.apiKey);
  const made = async (method: 'POST', url: string, payload: unknown, key: string) => {
    const res = await api(method, url, payload);
    assert.ok(res.statusCode === 201 || res.statusCode === 200, `${url}: ${res.statusCode} ${res.body}`);
    return (res.json() as Record<string, { _id: string }>)[key]!._id;
  };
  const upload = async (url: string, key: string) => {
    const form = multipart({ name: 'Notes' }, { filename: 'notes.txt', contentType: 'text/plain', content: Buffer.from('some notes\n') });
    const res = await t.app.inject({ method: 'POST', url, headers: { ...bearer(t.tenant.apiKey), ...form.headers }, payload: form.payload });
    assert.equal(res.statusCode, 201, res.body);
    return (res.json() as Record<string, { _id: string }>)[key]!._id;
  };
  const { companyId, teamId, userId } = t.tenant;
  const boardId = await made('POST', `/api/v1/boards?teamId=${teamId}`, { name: 'Board' }, 'board');
  const listId = await made('POST', '/api/v1/lists', { board: boardId, name: 'List' }, 'list');
  const labelId = await made('POST', `/api/v1/boards/${boardId}/labels`, { name: 'Bug', color: '000000000000000000000001' }, 'label');
  const cardId = await made('POST', '/api/v1/cards', { list: listId, name: 'Card' }, 'card');
  const checklistId = await made('POST', `/api/v1/cards/${cardId}/checklists`, { name: 'Checklist' }, 'checklist');
  const itemId = await made('POST', `/api/v1/checklists/${checklistId}/items`, { name: 'Item' }, 'checklistItem');
  const commentId = await made('POST', `/api/v1/cards/${cardId}/comments`, { content: 'A comment' }, 'comment');
  const discussionId = await made('POST', `/api/v1/comments/${commentId}/discussions`, { content: 'A reply' }, 'discussion');
  const attachmentId = await upload(`/api/v1/cards/${cardId}/attachments`, 'attachment');
  const itemAttachmentId = await upload(`/api/v1/checklist-items/${itemId}/attachments`, 'attachment');
  const cheerId = await made('POST', `/api/v1/cards/${cardId}/cheers`, { content: '🎉' }, 'cheer');
  const keyId = await made('POST', '/api/v1/api-keys', { name: 'spare' }, 'apiKey');
  return {
    companyId,
    teamId,
    userId,
    boardId,
    listId,
    labelId,
    cardId,
    checklistId,
    itemId,
    commentId,
    discussionId,
    attachmentId,
    itemAttachmentId,
    cheerId,
    keyId,
  };
}
