/**
 * Every operation of the contract's table (../shared/CONTRACT.md, "Operations"), transcribed here
 * with its tier: each must be served and documented with exactly that rate-limit tier.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../support/harness.ts';

const CONTRACT: readonly (readonly [string, string, string])[] = [
  ['GET', '/api/v1/companies', 'very-low'],
  ['POST', '/api/v1/companies', 'high'],
  ['POST', '/api/v1/companies/{companyId}/members', 'high'],
  ['GET', '/api/v1/teams', 'very-low'],
  ['POST', '/api/v1/teams', 'high'],
  ['POST', '/api/v1/teams/{teamId}/members', 'high'],
  ['DELETE', '/api/v1/teams/{teamId}/members/{userId}', 'high'],
  ['POST', '/api/v1/boards', 'medium'],
  ['GET', '/api/v1/boards', 'very-low'],
  ['GET', '/api/v1/boards/{boardId}', 'very-low'],
  ['GET', '/api/v1/boards/{boardId}/lists', 'very-low'],
  ['GET', '/api/v1/lists', 'very-low'],
  ['POST', '/api/v1/lists', 'medium'],
  ['PATCH', '/api/v1/lists/{listId}', 'low'],
  ['GET', '/api/v1/label-colors', 'very-low'],
  ['GET', '/api/v1/boards/{boardId}/labels', 'very-low'],
  ['POST', '/api/v1/boards/{boardId}/labels', 'medium'],
  ['PATCH', '/api/v1/labels/{labelId}', 'low'],
  ['DELETE', '/api/v1/labels/{labelId}', 'low'],
  ['POST', '/api/v1/cards', 'medium'],
  ['GET', '/api/v1/cards/{cardId}', 'very-low'],
  ['PATCH', '/api/v1/cards/{cardId}', 'low'],
  ['PATCH', '/api/v1/cards/{cardId}/position', 'low'],
  ['PATCH', '/api/v1/cards/{cardId}/archive', 'low'],
  ['PATCH', '/api/v1/cards/{cardId}/unarchive', 'low'],
  ['POST', '/api/v1/cards/{cardId}/copy', 'medium'],
  ['GET', '/api/v1/lists/{listId}/cards', 'very-low'],
  ['GET', '/api/v1/cards/{cardId}/company-team', 'very-low'],
  ['PATCH', '/api/v1/cards/archived', 'medium'],
  ['PATCH', '/api/v1/cards/copy', 'medium'],
  ['PATCH', '/api/v1/cards/update-multi-team', 'high'],
  ['PATCH', '/api/v1/cards/archived-multi-team', 'high'],
  ['PATCH', '/api/v1/cards/copy-multi-team', 'high'],
  ['PATCH', '/api/v1/cards/move-multi-team', 'high'],
  ['POST', '/v2/cards/{cardId}/members', 'low'],
  ['POST', '/v2/cards/{cardId}/labels', 'low'],
  ['POST', '/api/v1/cards/{cardId}/cheers', 'low'],
  ['DELETE', '/api/v1/cards/{cardId}/cheers/{cheerId}', 'low'],
  ['POST', '/api/v1/comments/{commentId}/cheers', 'low'],
  ['DELETE', '/api/v1/comments/{commentId}/cheers/{cheerId}', 'low'],
  ['POST', '/api/v1/discussions/{discussionId}/cheers', 'low'],
  ['DELETE', '/api/v1/discussions/{discussionId}/cheers/{cheerId}', 'low'],
  ['POST', '/api/v1/attachments/{attachmentId}/cheers', 'low'],
  ['DELETE', '/api/v1/attachments/{attachmentId}/cheers/{cheerId}', 'low'],
  ['POST', '/api/v1/cards/{cardId}/comments', 'low'],
  ['GET', '/api/v1/cards/{cardId}/comments', 'very-low'],
  ['PATCH', '/api/v1/comments/{commentId}', 'low'],
  ['DELETE', '/api/v1/comments/{commentId}', 'low'],
  ['POST', '/api/v1/comments/{commentId}/discussions', 'low'],
  ['PATCH', '/api/v1/discussions/{discussionId}', 'low'],
  ['DELETE', '/api/v1/discussions/{discussionId}', 'low'],
  ['POST', '/api/v1/cards/{cardId}/attachments', 'medium'],
  ['GET', '/api/v1/cards/{cardId}/attachments/{attachmentId}/file', 'very-low'],
  ['PATCH', '/api/v1/cards/{cardId}/attachments/{attachmentId}', 'low'],
  ['DELETE', '/api/v1/cards/{cardId}/attachments/{attachmentId}', 'low'],
  ['POST', '/api/v1/checklist-items/{itemId}/attachments', 'medium'],
  ['PATCH', '/api/v1/checklist-items/{itemId}/attachments/{attachmentId}', 'low'],
  ['DELETE', '/api/v1/checklist-items/{itemId}/attachments/{attachmentId}', 'low'],
  ['GET', '/api/v1/cards/{cardId}/checklists', 'very-low'],
  ['POST', '/api/v1/cards/{cardId}/checklists', 'medium'],
  ['PATCH', '/api/v1/checklists/{checklistId}', 'low'],
  ['PATCH', '/api/v1/checklists/{checklistId}/position', 'low'],
  ['POST', '/api/v1/checklists/{checklistId}/copy', 'medium'],
  ['DELETE', '/api/v1/checklists/{checklistId}', 'low'],
  ['GET', '/api/v1/checklists/{checklistId}/items', 'very-low'],
  ['POST', '/api/v1/checklists/{checklistId}/items', 'medium'],
  ['GET', '/api/v1/checklist-items/{itemId}', 'very-low'],
  ['PATCH', '/api/v1/checklist-items/{itemId}', 'low'],
  ['PATCH', '/api/v1/checklist-items/{itemId}/date', 'low'],
  ['PATCH', '/api/v1/checklist-items/{itemId}/complete', 'low'],
  ['PATCH', '/api/v1/checklist-items/{itemId}/position', 'low'],
  ['POST', '/api/v1/checklist-items/{itemId}/members', 'low'],
  ['POST', '/api/v1/checklist-items/{itemId}/copy', 'medium'],
  ['DELETE', '/api/v1/checklist-items/{itemId}', 'low'],
  ['GET', '/api/v1/my-tasks', 'very-low'],
  ['GET', '/api/v1/my-tasks/lists/{listId}', 'very-low'],
  ['GET', '/api/v1/notifications', 'very-low'],
  ['PATCH', '/api/v1/notifications/{notificationId}/read', 'low'],
  ['PATCH', '/api/v1/notifications/read-all', 'low'],
  ['GET', '/api/v1/me', 'very-low'],
  ['GET', '/api/v1/api-keys', 'very-low'],
  ['POST', '/api/v1/api-keys', 'secure'],
  ['DELETE', '/api/v1/api-keys/{keyId}', 'secure'],
  ['POST', '/api/v1/api-keys/{keyId}/rotate', 'secure'],
  // issue 15: the whole life of every object
  ['PATCH', '/api/v1/boards/{boardId}', 'low'],
  ['PATCH', '/api/v1/boards/{boardId}/archive', 'low'],
  ['PATCH', '/api/v1/boards/{boardId}/unarchive', 'low'],
  ['DELETE', '/api/v1/boards/{boardId}', 'high'],
  ['PATCH', '/api/v1/lists/{listId}/archive', 'low'],
  ['PATCH', '/api/v1/lists/{listId}/unarchive', 'low'],
  ['DELETE', '/api/v1/lists/{listId}', 'high'],
  ['DELETE', '/api/v1/cards/{cardId}', 'medium'],
  ['PATCH', '/api/v1/cards/delete-multi-team', 'high'],
  ['PATCH', '/api/v1/companies/{companyId}', 'high'],
  ['PATCH', '/api/v1/teams/{teamId}', 'high'],
  ['PATCH', '/api/v1/companies/{companyId}/members/{userId}', 'secure'],
  ['DELETE', '/api/v1/companies/{companyId}/members/{userId}', 'secure'],
  ['DELETE', '/api/v1/companies/{companyId}/members/me', 'high'],
  ['DELETE', '/api/v1/teams/{teamId}/members/me', 'high'],
  ['PATCH', '/api/v1/me', 'low'],
  // issue 11: the activity reads
  ['GET', '/api/v1/cards/{cardId}/activity', 'very-low'],
  ['GET', '/api/v1/boards/{boardId}/activity', 'very-low'],
  ['GET', '/api/v1/teams/{teamId}/activity', 'very-low'],
  // search across everything a person can reach
  ['GET', '/api/v1/search', 'very-low'],
  // issue 34: bring a board in (the import's tier is the issue's; its read is polled, as the other reads)
  ['POST', '/api/v1/imports/trello', 'medium'],
  ['POST', '/api/v1/imports/taskboard', 'medium'],
  ['GET', '/api/v1/imports/{importId}', 'very-low'],
  // board rules (the rules' own actions are not rate-limited: they run in no request)
  ['POST', '/api/v1/boards/{boardId}/rules', 'medium'],
  ['GET', '/api/v1/boards/{boardId}/rules', 'very-low'],
  ['POST', '/api/v1/boards/{boardId}/rules/dry-run', 'low'],
  ['GET', '/api/v1/rules/{ruleId}', 'very-low'],
  ['PATCH', '/api/v1/rules/{ruleId}', 'low'],
  ['DELETE', '/api/v1/rules/{ruleId}', 'low'],
  ['GET', '/api/v1/rules/{ruleId}/runs', 'very-low'],
  // recurring cards
  ['POST', '/api/v1/boards/{boardId}/recurrences', 'medium'],
  ['GET', '/api/v1/boards/{boardId}/recurrences', 'very-low'],
  ['POST', '/api/v1/boards/{boardId}/recurrences/preview', 'low'],
  ['GET', '/api/v1/recurrences/{recurrenceId}', 'very-low'],
  ['PATCH', '/api/v1/recurrences/{recurrenceId}', 'low'],
  ['DELETE', '/api/v1/recurrences/{recurrenceId}', 'low'],
  // custom fields (reads as the other reads, creation as a label's, changes as toggles)
  ['GET', '/api/v1/boards/{boardId}/custom-fields', 'very-low'],
  ['POST', '/api/v1/boards/{boardId}/custom-fields', 'medium'],
  ['PATCH', '/api/v1/custom-fields/{fieldId}', 'low'],
  ['DELETE', '/api/v1/custom-fields/{fieldId}', 'low'],
  ['PATCH', '/api/v1/cards/{cardId}/custom-fields', 'low'],
  // card relations (reads as the other reads, creation as a checklist's, removal as a toggle)
  ['GET', '/api/v1/cards/{cardId}/relations', 'very-low'],
  ['GET', '/api/v1/boards/{boardId}/relations', 'very-low'],
  ['POST', '/api/v1/cards/{cardId}/relations', 'medium'],
  ['DELETE', '/api/v1/cards/{cardId}/relations/{relationId}', 'low'],
];

describe("the contract's operations", () => {
  let t: TestApp;
  let paths: Record<string, Record<string, { 'x-rate-limit-tier'?: string }>>;
  before(async () => {
    t = await buildTestApp('sqlite');
    paths = (t.app.swagger() as unknown as { paths: typeof paths }).paths;
  });
  after(() => t.dispose());

  it('are all served and documented, each with its contract tier', () => {
    const wrong = CONTRACT.flatMap(([method, path, tier]) => {
      const op = paths[path]?.[method.toLowerCase()];
      if (!op) return [`${method} ${path}: missing`];
      return op['x-rate-limit-tier'] === tier ? [] : [`${method} ${path}: tier ${op['x-rate-limit-tier']}, contract ${tier}`];
    });
    assert.deepEqual(wrong, []);
  });

  it('are transcribed once each', () => {
    const keys = CONTRACT.map(([method, path]) => `${method} ${path}`);
    assert.equal(new Set(keys).size, keys.length);
  });
});
