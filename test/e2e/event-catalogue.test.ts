/**
 * Every write of the contract records its events in its own transaction: each successful write
 * (every POST, PATCH and DELETE of /openapi.json, run here one by one) has at least one event of the
 * expected types, filed under the right company (and card, where it is a card's), by the caller's
 * user and key, with the request's id; every event of a request is of its expected types (with a
 * `notification.created` where the write tells someone else: src/domain/notifications/notify.ts);
 * the few operations that record no event by design (EXEMPT, each with its reason) succeed and record
 * none; refused requests (400, 404, 409) have none. Then bulk: 100 cards, 100 events, one request id; a bulk
 * request failing on its last item, none.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Row } from '../../src/storage/database.ts';
import { addMember, multipart } from '../support/fixtures.ts';
import { bearer, buildTwoCompanyApp, ENGINES, type OtherCompany, type TestApp } from '../support/harness.ts';
import { eventually } from '../support/receiver.ts';

type Method = 'POST' | 'PATCH' | 'DELETE';
type EventRow = Omit<Row<'events'>, 'tx'>;

for (const engine of ENGINES) {
  describe(`every write records its events [${engine}]`, () => {
    let t: TestApp;
    let other: OtherCompany;
    let requests = 0;
    const covered = new Set<string>();
    before(async () => {
      ({ t, other } = await buildTwoCompanyApp(engine));
    });
    after(() => t.dispose());

    const eventsOf = (requestId: string): Promise<EventRow[]> =>
      t.services.db.selectFrom('events').selectAll().where('request_id', '=', requestId).orderBy('seq').execute() as Promise<EventRow[]>;

    /** Sends one request with a request id of its own; answers the response and that id. */
    async function send(method: Method, url: string, payload?: unknown, upload?: ReturnType<typeof multipart>, key = t.tenant.apiKey) {
      const requestId = `evt-${engine}-${++requests}`;
      const headers = { ...bearer(key), 'x-request-id': requestId, ...(upload?.headers ?? {}) };
      const body = upload ? { payload: upload.payload } : payload !== undefined ? { payload: payload as object } : {};
      const res = await t.app.inject({ method, url, headers, ...body });
      return { res, requestId };
    }

    /**
     * One successful write of the operation `route` ("METHOD /path/{param}", as /openapi.json names
     * it): its events are of `types` (each at least once, no other), by the tenant's owner and key,
     * filed under `subject`. Answers the response body.
     */
    async function write(
      route: string,
      url: string,
      payload: unknown,
      types: readonly string[],
      subject: { company?: string | null; card?: string } = {},
      upload?: ReturnType<typeof multipart>,
    ): Promise<any> {
      const method = route.split(' ')[0] as Method;
      const { res, requestId } = await send(method, url, payload, upload);
      assert.ok(res.statusCode < 300, `${route}: ${res.statusCode} ${res.body}`);
      const events = await eventsOf(requestId);
      assert.ok(events.length > 0, `${route} recorded no event`);
      assert.deepEqual([...new Set(events.map((e) => e.type))].sort(), [...types].sort(), route);
      for (const event of events) {
        assert.equal(event.actor_user_id, t.tenant.userId, route);
        assert.match(String(event.actor_api_key_id), /^[0-9a-f]{24}$/, route);
        if (subject.company !== undefined) assert.equal(event.company_id, subject.company, `${route}: company`);
        if (subject.card !== undefined) assert.equal(event.card_id, subject.card, `${route}: card`);
        assert.doesNotMatch(event.data, /tb_[A-Za-z0-9]|some notes/, `${route}: an event carries no key material nor file bytes`);
      }
      covered.add(route);
      return res.json();
    }

    /**
     * Write operations that record no event by design, each with why: they change no company's
     * board world (nothing a board stream, activity feed or webhook would carry). Each is still run
     * once below (`unrecorded`) to prove it succeeds and records nothing.
     */
    const EXEMPT: Record<string, string> = {
      'PATCH /api/v1/notifications/{notificationId}/read': "the caller's own notification state, not a change of the board's world",
      'PATCH /api/v1/notifications/read-all': "the caller's own notification state, not a change of the board's world",
      'POST /api/v1/webhooks':
        'webhook management is delivery configuration of the company, not a change of its boards (src/domain/webhooks/service.ts records none)',
      'PATCH /api/v1/webhooks/{webhookId}': 'webhook management is delivery configuration, not a change of the boards (records none)',
      'DELETE /api/v1/webhooks/{webhookId}': 'webhook management is delivery configuration, not a change of the boards (records none)',
      'POST /api/v1/webhooks/{webhookId}/rotate-secret': 'a webhook signing secret; an event would spread news of key material (records none)',
      'POST /api/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver':
        'resends an already recorded event; recording another would deliver it twice (records none)',
      'POST /api/v1/boards/{boardId}/rules/dry-run': 'tries a rule on the cards without changing anything (records none)',
      'POST /api/v1/boards/{boardId}/recurrences/preview': 'computes occurrences of a schedule, changing nothing (records none)',
      'POST /api/v1/imports/trello/people': "reads an export's people to show them before an import, writing nothing (records none)",
      'POST /api/v1/imports/taskboard/people': "reads an export's people to show them before an import, writing nothing (records none)",
    };
    const exempted = new Set<string>();

    /** One successful write of an EXEMPT operation: a 2xx, and no event at all. Answers the body. */
    async function unrecorded(route: string, url: string, payload?: unknown, key = t.tenant.apiKey, upload?: ReturnType<typeof multipart>): Promise<any> {
      assert.ok(route in EXEMPT, `${route} is not exempt from recording events`);
      const { res, requestId } = await send(route.split(' ')[0] as Method, url, payload, upload, key);
      assert.ok(res.statusCode < 300, `${route}: ${res.statusCode} ${res.body}`);
      assert.deepEqual(await eventsOf(requestId), [], `${route} recorded events`);
      exempted.add(route);
      return res.body ? res.json() : undefined;
    }

    /** A refused request: its status, and no event at all. */
    async function refused(method: Method, url: string, payload: unknown, status: number, key?: string) {
      const { res, requestId } = await send(method, url, payload, undefined, key);
      assert.equal(res.statusCode, status, `${method} ${url}: ${res.body}`);
      assert.deepEqual(await eventsOf(requestId), [], `${method} ${url} → ${status} recorded events`);
    }

    const file = () => multipart({ name: 'Notes' }, { filename: 'notes.txt', contentType: 'text/plain', content: Buffer.from('some notes\n') });

    it('records events for every write operation of /openapi.json, and none for refused requests', async () => {
      const { companyId, teamId } = t.tenant;
      const company = { company: companyId };
      const scope = { companyId, teamId };

      // companies, teams and their members
      const newCompany = await write('POST /api/v1/companies', '/api/v1/companies', { name: 'Initech' }, ['company.created']);
      assert.ok(newCompany.company._id);
      await write(
        'POST /api/v1/companies/{companyId}/members',
        `/api/v1/companies/${companyId}/members`,
        { email: 'new@acme.test', fullName: 'New Person', role: 'member' },
        ['company.member.added'],
        company,
      );
      const member = await addMember(t.services, { companyId, email: 'mia@acme.test' });
      const team = await write('POST /api/v1/teams', `/api/v1/teams?companyId=${companyId}`, { name: 'Ops' }, ['team.created'], company);
      await write('POST /api/v1/teams/{teamId}/members', `/api/v1/teams/${team.team._id}/members`, { userId: member.userId }, ['team.member.added'], company);
      await write(
        'DELETE /api/v1/teams/{teamId}/members/{userId}',
        `/api/v1/teams/${team.team._id}/members/${member.userId}`,
        undefined,
        ['team.member.removed'],
        company,
      );
      await write('POST /api/v1/teams/{teamId}/members', `/api/v1/teams/${teamId}/members`, { userId: member.userId }, ['team.member.added'], company);

      // boards, lists, labels
      const board = (await write('POST /api/v1/boards', `/api/v1/boards?teamId=${teamId}`, { name: 'Board' }, ['board.created'], company)).board;
      const list = (await write('POST /api/v1/lists', '/api/v1/lists', { board: board._id, name: 'Todo' }, ['list.created'], company)).list;
      const list2 = (await write('POST /api/v1/lists', '/api/v1/lists', { board: board._id, name: 'Done' }, ['list.created'], company)).list;
      await write('PATCH /api/v1/lists/{listId}', `/api/v1/lists/${list2._id}`, { name: 'Finished' }, ['list.updated'], company);
      const label = (
        await write(
          'POST /api/v1/boards/{boardId}/labels',
          `/api/v1/boards/${board._id}/labels`,
          { name: 'Bug', color: '000000000000000000000001' },
          ['label.created'],
          company,
        )
      ).label;
      const label2 = (
        await write(
          'POST /api/v1/boards/{boardId}/labels',
          `/api/v1/boards/${board._id}/labels`,
          { name: 'Doomed', color: '000000000000000000000001' },
          ['label.created'],
          company,
        )
      ).label;
      await write('PATCH /api/v1/labels/{labelId}', `/api/v1/labels/${label._id}`, { name: 'Defect' }, ['label.updated'], company);

      // cards
      const card = (await write('POST /api/v1/cards', '/api/v1/cards', { list: list._id, name: 'Card' }, ['card.created'], company)).card;
      // watching: the person's own, no change of the card
      await write('POST /api/v1/cards/{cardId}/watch', `/api/v1/cards/${card._id}/watch`, undefined, ['card.watched'], { ...company, card: card._id });
      await write('DELETE /api/v1/cards/{cardId}/watch', `/api/v1/cards/${card._id}/watch`, undefined, ['card.unwatched'], { ...company, card: card._id });
      const on = { company: companyId, card: card._id };
      await write('PATCH /api/v1/cards/{cardId}', `/api/v1/cards/${card._id}`, { name: 'Card, renamed' }, ['card.updated'], on);
      await write('PATCH /api/v1/cards/{cardId}/position', `/api/v1/cards/${card._id}/position`, { position: 'top', list: list2._id }, ['card.moved'], on);
      await write('PATCH /api/v1/cards/{cardId}/archive', `/api/v1/cards/${card._id}/archive`, undefined, ['card.archived'], on);
      await write('PATCH /api/v1/cards/{cardId}/unarchive', `/api/v1/cards/${card._id}/unarchive`, undefined, ['card.unarchived'], on);
      const copy = (await write('POST /api/v1/cards/{cardId}/copy', `/api/v1/cards/${card._id}/copy`, { list: list._id }, ['card.copied'], company)).card;
      await write('PATCH /api/v1/cards/archived', `/api/v1/cards/archived?teamId=${teamId}`, { cardIds: [copy._id], status: false }, ['card.unarchived'], {
        company: companyId,
        card: copy._id,
      });
      await write('PATCH /api/v1/cards/copy', `/api/v1/cards/copy?teamId=${teamId}`, { cardIds: [copy._id], list: list._id }, ['card.copied'], company);
      const item = (cardId: string) => ({ cardId, ...scope });
      await write(
        'PATCH /api/v1/cards/update-multi-team',
        '/api/v1/cards/update-multi-team',
        { cards: [{ ...item(copy._id), update: { description: 'd' } }] },
        ['card.updated'],
        { company: companyId, card: copy._id },
      );
      await write('PATCH /api/v1/cards/archived-multi-team', '/api/v1/cards/archived-multi-team', { cards: [item(copy._id)] }, ['card.archived'], {
        company: companyId,
        card: copy._id,
      });
      await write(
        'PATCH /api/v1/cards/copy-multi-team',
        '/api/v1/cards/copy-multi-team',
        { cards: [item(card._id)], target: { ...scope, list: list._id } },
        ['card.copied'],
        company,
      );
      await write(
        'PATCH /api/v1/cards/move-multi-team',
        '/api/v1/cards/move-multi-team',
        { cards: [item(copy._id)], target: { ...scope, list: list2._id } },
        ['card.moved'],
        { company: companyId, card: copy._id },
      );
      // Mia, made a card member, is told (card.assigned): a notification.created addressed to her, in the same request
      const members = await write(
        'POST /v2/cards/{cardId}/members',
        `/v2/cards/${card._id}/members`,
        { members: [member.userId] },
        ['card.members.toggled', 'notification.created'],
        on,
      );
      assert.ok(members);
      await write('POST /v2/cards/{cardId}/labels', `/v2/cards/${card._id}/labels`, { labels: [label._id, label2._id] }, ['card.labels.toggled'], on);
      // deleting a label takes it off the card: the label's event and the card's
      await write('DELETE /api/v1/labels/{labelId}', `/api/v1/labels/${label2._id}`, undefined, ['label.deleted', 'card.labels.toggled'], company);

      // custom fields: the definitions are the board's events; a value, and a field deleted under one, the card's
      const field = await write(
        'POST /api/v1/boards/{boardId}/custom-fields',
        `/api/v1/boards/${card.board}/custom-fields`,
        { name: 'Estimate', type: 'number' },
        ['custom_field.created'],
        company,
      );
      await write('PATCH /api/v1/custom-fields/{fieldId}', `/api/v1/custom-fields/${field.customField._id}`, { unit: 'h' }, ['custom_field.updated'], company);
      await write(
        'PATCH /api/v1/cards/{cardId}/custom-fields',
        `/api/v1/cards/${card._id}/custom-fields`,
        { values: [{ field: field.customField._id, value: 3 }] },
        ['card.custom_fields.set'],
        on,
      );
      await write(
        'DELETE /api/v1/custom-fields/{fieldId}',
        `/api/v1/custom-fields/${field.customField._id}`,
        undefined,
        ['custom_field.deleted', 'card.custom_fields.set'],
        company,
      );

      // a relation is a change of both cards: an event on each
      const relation = await write(
        'POST /api/v1/cards/{cardId}/relations',
        `/api/v1/cards/${card._id}/relations`,
        { kind: 'blocks', card: copy._id },
        ['card.relation.added'],
        company,
      );
      await write(
        'DELETE /api/v1/cards/{cardId}/relations/{relationId}',
        `/api/v1/cards/${card._id}/relations/${relation.relation._id}`,
        undefined,
        ['card.relation.removed'],
        company,
      );

      // comments, discussions, cheers: a comment tells the card's members (Mia); a reply tells the comment's
      // author and a cheer the item's author, both the caller here, who is never told of their own action
      const comment = (
        await write(
          'POST /api/v1/cards/{cardId}/comments',
          `/api/v1/cards/${card._id}/comments`,
          { content: 'Hello' },
          ['comment.created', 'notification.created'],
          on,
        )
      ).comment;
      await write('PATCH /api/v1/comments/{commentId}', `/api/v1/comments/${comment._id}`, { content: 'Hello again' }, ['comment.updated'], on);
      const discussion = (
        await write(
          'POST /api/v1/comments/{commentId}/discussions',
          `/api/v1/comments/${comment._id}/discussions`,
          { content: 'Hi' },
          ['discussion.created'],
          on,
        )
      ).discussion;
      await write('PATCH /api/v1/discussions/{discussionId}', `/api/v1/discussions/${discussion._id}`, { content: 'Hi!' }, ['discussion.updated'], on);
      const attachment = (
        await write('POST /api/v1/cards/{cardId}/attachments', `/api/v1/cards/${card._id}/attachments`, undefined, ['attachment.created'], on, file())
      ).attachment;
      for (const [what, id] of [
        ['cards', card._id],
        ['comments', comment._id],
        ['discussions', discussion._id],
        ['attachments', attachment._id],
      ] as const) {
        const cheer = (
          await write(`POST /api/v1/${what}/{${what.slice(0, -1)}Id}/cheers`, `/api/v1/${what}/${id}/cheers`, { content: '🎉' }, ['cheer.created'], on)
        ).cheer;
        await write(
          `DELETE /api/v1/${what}/{${what.slice(0, -1)}Id}/cheers/{cheerId}`,
          `/api/v1/${what}/${id}/cheers/${cheer._id}`,
          undefined,
          ['cheer.deleted'],
          on,
        );
      }
      await write(
        'PATCH /api/v1/cards/{cardId}/attachments/{attachmentId}',
        `/api/v1/cards/${card._id}/attachments/${attachment._id}`,
        { name: 'Renamed' },
        ['attachment.renamed'],
        on,
      );
      await write(
        'DELETE /api/v1/cards/{cardId}/attachments/{attachmentId}',
        `/api/v1/cards/${card._id}/attachments/${attachment._id}`,
        undefined,
        ['attachment.deleted'],
        on,
      );
      await write('DELETE /api/v1/discussions/{discussionId}', `/api/v1/discussions/${discussion._id}`, undefined, ['discussion.deleted'], on);
      await write('DELETE /api/v1/comments/{commentId}', `/api/v1/comments/${comment._id}`, undefined, ['comment.deleted'], on);

      // checklists and items
      const checklist = (
        await write('POST /api/v1/cards/{cardId}/checklists', `/api/v1/cards/${card._id}/checklists`, { name: 'Steps' }, ['checklist.created'], on)
      ).checklist;
      const checklist2 = (
        await write('POST /api/v1/cards/{cardId}/checklists', `/api/v1/cards/${card._id}/checklists`, { name: 'More' }, ['checklist.created'], on)
      ).checklist;
      await write('PATCH /api/v1/checklists/{checklistId}', `/api/v1/checklists/${checklist._id}`, { name: 'Steps!' }, ['checklist.updated'], on);
      await write(
        'PATCH /api/v1/checklists/{checklistId}/position',
        `/api/v1/checklists/${checklist._id}/position`,
        { position: 'bottom' },
        ['checklist.moved'],
        on,
      );
      await write('POST /api/v1/checklists/{checklistId}/copy', `/api/v1/checklists/${checklist._id}/copy`, { card: copy._id }, ['checklist.copied'], company);
      const entry = (
        await write(
          'POST /api/v1/checklists/{checklistId}/items',
          `/api/v1/checklists/${checklist._id}/items`,
          { name: 'Step' },
          ['checklist.item.created'],
          on,
        )
      ).checklistItem;
      const path = `/api/v1/checklist-items/${entry._id}`;
      await write('PATCH /api/v1/checklist-items/{itemId}', path, { name: 'Step 1' }, ['checklist.item.updated'], on);
      await write('PATCH /api/v1/checklist-items/{itemId}/date', `${path}/date`, { date: '2026-12-01T00:00:00.000Z' }, ['checklist.item.updated'], on);
      await write('PATCH /api/v1/checklist-items/{itemId}/complete', `${path}/complete`, {}, ['checklist.item.completed'], on);
      await write('PATCH /api/v1/checklist-items/{itemId}/complete', `${path}/complete`, {}, ['checklist.item.uncompleted'], on);
      await write(
        'PATCH /api/v1/checklist-items/{itemId}/position',
        `${path}/position`,
        { position: 0, checklist: checklist2._id },
        ['checklist.item.moved'],
        on,
      );
      await write('POST /api/v1/checklist-items/{itemId}/members', `${path}/members`, { members: [member.userId] }, ['checklist.item.members.toggled'], on);
      const itemFile = (await write('POST /api/v1/checklist-items/{itemId}/attachments', `${path}/attachments`, undefined, ['attachment.created'], on, file()))
        .attachment;
      await write(
        'PATCH /api/v1/checklist-items/{itemId}/attachments/{attachmentId}',
        `${path}/attachments/${itemFile._id}`,
        { name: 'N' },
        ['attachment.renamed'],
        on,
      );
      await write(
        'DELETE /api/v1/checklist-items/{itemId}/attachments/{attachmentId}',
        `${path}/attachments/${itemFile._id}`,
        undefined,
        ['attachment.deleted'],
        on,
      );
      await write('POST /api/v1/checklist-items/{itemId}/copy', `${path}/copy`, { checklist: checklist._id }, ['checklist.item.copied'], on);
      await write('DELETE /api/v1/checklist-items/{itemId}', path, undefined, ['checklist.item.deleted'], on);
      await write('DELETE /api/v1/checklists/{checklistId}', `/api/v1/checklists/${checklist2._id}`, undefined, ['checklist.deleted'], on);

      // API keys: ids and names only
      const key = (await write('POST /api/v1/api-keys', '/api/v1/api-keys', { name: 'script' }, ['apikey.created'], { company: null })).apiKey;
      await write('POST /api/v1/api-keys/{keyId}/rotate', `/api/v1/api-keys/${key._id}/rotate`, undefined, ['apikey.rotated'], { company: null });
      await write('DELETE /api/v1/api-keys/{keyId}', `/api/v1/api-keys/${key._id}`, undefined, ['apikey.revoked'], { company: null });

      // calendar feeds: ids only, never the token
      const feed = (await write('POST /api/v1/calendar-feeds', '/api/v1/calendar-feeds', {}, ['calendarfeed.created'], { company: null })).calendarFeed;
      await write('DELETE /api/v1/calendar-feeds/{feedId}', `/api/v1/calendar-feeds/${feed._id}`, undefined, ['calendarfeed.revoked'], { company: null });

      // starred boards: the person's own, filed under them
      await write('POST /api/v1/boards/{boardId}/star', `/api/v1/boards/${board._id}/star`, undefined, ['board.starred'], { company: null });
      await write('DELETE /api/v1/boards/{boardId}/star', `/api/v1/boards/${board._id}/star`, undefined, ['board.unstarred'], { company: null });

      // account, companies and teams: changes
      await write('PATCH /api/v1/me', '/api/v1/me', { fullName: 'Olive O. Owner' }, ['user.updated'], { company: null });
      await write('PATCH /api/v1/companies/{companyId}', `/api/v1/companies/${companyId}`, { name: 'Acme Inc' }, ['company.updated'], company);
      await write('PATCH /api/v1/teams/{teamId}', `/api/v1/teams/${team.team._id}`, { name: 'Operations' }, ['team.updated'], company);
      await write(
        'PATCH /api/v1/companies/{companyId}/members/{userId}',
        `/api/v1/companies/${companyId}/members/${member.userId}`,
        { role: 'admin' },
        ['member.role.changed'],
        company,
      );

      // imports answer 202 and record their events when the board is published: waited for here
      for (const source of ['trello', 'taskboard'] as const) {
        const route = `POST /api/v1/imports/${source}`;
        const content =
          source === 'trello'
            ? {
                name: 'From Trello',
                lists: [{ id: 'l1', name: 'L' }],
                members: [{ id: 'p1', fullName: 'Nobody Here', username: 'nobody' }],
                cards: [{ id: 'c1', name: 'C', idList: 'l1', idMembers: ['p1'] }],
              }
            : {
                format: 'taskboard-board',
                formatVersion: 1,
                board: { name: 'Back' },
                labels: [],
                lists: [{ _id: 'l1', name: 'L', position: 1 }],
                cards: [],
                people: [],
              };
        const upload = () => multipart({}, { filename: 'board.json', contentType: 'application/json', content: Buffer.from(JSON.stringify(content)) });
        await unrecorded(`POST /api/v1/imports/${source}/people`, `/api/v1/imports/${source}/people?teamId=${teamId}`, undefined, undefined, upload());
        const { res, requestId } = await send('POST', `/api/v1/imports/${source}?teamId=${teamId}`, undefined, upload());
        assert.equal(res.statusCode, 202, `${route}: ${res.body}`);
        const events = await eventually(
          () => eventsOf(requestId),
          (rows) => rows.some((e) => e.type === 'board.imported'),
          20_000,
          `${route} to publish its board`,
        );
        const types =
          source === 'trello' ? ['board.created', 'list.created', 'card.created', 'board.imported'] : ['board.created', 'list.created', 'board.imported'];
        assert.deepEqual([...new Set(events.map((e) => e.type))].sort(), types.sort(), route);
        for (const event of events) assert.equal(event.actor_user_id, t.tenant.userId, route);
        covered.add(route);
        if (source === 'trello') {
          const done = await eventually(
            async () =>
              (await t.app.inject({ method: 'GET', url: `/api/v1/imports/${res.json().import._id}`, headers: bearer(t.tenant.apiKey) })).json().import,
            (record) => record.status === 'done',
            20_000,
            'the import to be done',
          );
          await write(
            'POST /api/v1/imports/{importId}/people',
            `/api/v1/imports/${done._id}/people`,
            { people: [{ key: 'p1', user: t.tenant.userId }] },
            ['card.members.toggled'],
            company,
          );
        }
      }

      // board and list lifecycle, on objects of their own
      const board2 = (await write('POST /api/v1/boards', `/api/v1/boards?teamId=${teamId}`, { name: 'Short-lived' }, ['board.created'], company)).board;
      await write(
        'PATCH /api/v1/boards/{boardId}',
        `/api/v1/boards/${board2._id}`,
        { name: 'Short-lived!', description: 'soon gone' },
        ['board.updated'],
        company,
      );
      await write('PATCH /api/v1/boards/{boardId}/archive', `/api/v1/boards/${board2._id}/archive`, undefined, ['board.archived'], company);
      await write('PATCH /api/v1/boards/{boardId}/unarchive', `/api/v1/boards/${board2._id}/unarchive`, undefined, ['board.unarchived'], company);
      const list3 = (await write('POST /api/v1/lists', '/api/v1/lists', { board: board2._id, name: 'Doomed' }, ['list.created'], company)).list;
      await write('PATCH /api/v1/lists/{listId}/archive', `/api/v1/lists/${list3._id}/archive`, undefined, ['list.archived'], company);
      await write('PATCH /api/v1/lists/{listId}/unarchive', `/api/v1/lists/${list3._id}/unarchive`, undefined, ['list.unarchived'], company);
      const doomed = (await write('POST /api/v1/cards', '/api/v1/cards', { list: list3._id, name: 'Doomed 1' }, ['card.created'], company)).card;
      const doomed2 = (await write('POST /api/v1/cards', '/api/v1/cards', { list: list3._id, name: 'Doomed 2' }, ['card.created'], company)).card;
      const doomed3 = (await write('POST /api/v1/cards', '/api/v1/cards', { list: list3._id, name: 'Doomed 3' }, ['card.created'], company)).card;
      await write('DELETE /api/v1/cards/{cardId}', `/api/v1/cards/${doomed._id}`, undefined, ['card.deleted'], { company: companyId, card: doomed._id });
      await write('PATCH /api/v1/cards/delete-multi-team', '/api/v1/cards/delete-multi-team', { cards: [item(doomed2._id)] }, ['card.deleted'], {
        company: companyId,
        card: doomed2._id,
      });
      assert.ok(doomed3._id);
      // a list still holding a card: deleted with ?cascade=true
      await write('DELETE /api/v1/lists/{listId}', `/api/v1/lists/${list3._id}?cascade=true`, undefined, ['list.deleted'], company);

      // notifications: those of Mia, a card member told of the comment above (her own state: exempt)
      const inbox = await t.app.inject({ method: 'GET', url: '/api/v1/notifications', headers: bearer(member.apiKey) });
      assert.equal(inbox.statusCode, 200, inbox.body);
      const notification = (inbox.json() as { notifications: { _id: string }[] }).notifications[0];
      assert.ok(notification, 'the member has a notification');
      await unrecorded('PATCH /api/v1/notifications/{notificationId}/read', `/api/v1/notifications/${notification._id}/read`, undefined, member.apiKey);
      await unrecorded('PATCH /api/v1/notifications/read-all', '/api/v1/notifications/read-all', undefined, member.apiKey);

      // webhooks (disabled: nothing is sent); the delivery to redeliver is put in place directly
      const hook = (
        await unrecorded('POST /api/v1/webhooks', `/api/v1/webhooks?companyId=${companyId}`, {
          url: 'http://127.0.0.1:9/hook',
          types: ['card.*'],
          enabled: false,
        })
      ).webhook;
      await unrecorded('PATCH /api/v1/webhooks/{webhookId}', `/api/v1/webhooks/${hook._id}`, { types: ['card.*', 'list.*'] });
      await unrecorded('POST /api/v1/webhooks/{webhookId}/rotate-secret', `/api/v1/webhooks/${hook._id}/rotate-secret`);
      const delivered = (await t.services.db
        .selectFrom('events')
        .select(['id', 'type'])
        .where('company_id', '=', companyId)
        .orderBy('seq')
        .executeTakeFirstOrThrow()) as { id: string; type: string };
      const deliveryId = 'd'.repeat(24);
      const at = new Date().toISOString();
      await t.services.db
        .insertInto('webhook_deliveries')
        .values({
          id: deliveryId,
          webhook_id: hook._id,
          event_id: delivered.id,
          event_type: delivered.type,
          ordinal: 1_000_000,
          payload: '{}',
          status: 'failed',
          attempts: 1,
          next_attempt_at: at,
          created_at: at,
        } as never)
        .execute();
      await unrecorded(
        'POST /api/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver',
        `/api/v1/webhooks/${hook._id}/deliveries/${deliveryId}/redeliver`,
      );
      await unrecorded('DELETE /api/v1/webhooks/{webhookId}', `/api/v1/webhooks/${hook._id}`);

      // board rules: their management is board activity (a rule's own runs are tested in test/e2e/rules.test.ts)
      const boardSubject = { company: companyId };
      const ruleBody = { name: 'Complete', trigger: { type: 'card.completed' }, actions: [{ type: 'archive' }] };
      const rule = (await write('POST /api/v1/boards/{boardId}/rules', `/api/v1/boards/${board._id}/rules`, ruleBody, ['rule.created'], boardSubject)).rule;
      await write('PATCH /api/v1/rules/{ruleId}', `/api/v1/rules/${rule._id}`, { enabled: false }, ['rule.updated'], boardSubject);
      await unrecorded('POST /api/v1/boards/{boardId}/rules/dry-run', `/api/v1/boards/${board._id}/rules/dry-run`, { actions: [{ type: 'archive' }] });
      await write('DELETE /api/v1/rules/{ruleId}', `/api/v1/rules/${rule._id}`, undefined, ['rule.deleted'], boardSubject);
      // board templates: kept on the team (test/e2e/board-templates.test.ts); a board made from one records what it makes
      const teamSubject = { company: companyId };
      const made = await write(
        'POST /api/v1/boards/{boardId}/template',
        `/api/v1/boards/${board._id}/template`,
        { name: 'Sprint' },
        ['board_template.created'],
        teamSubject,
      );
      await write(
        'PATCH /api/v1/board-templates/{templateId}',
        `/api/v1/board-templates/${made.template._id}`,
        { name: 'Sprint plan' },
        ['board_template.updated'],
        teamSubject,
      );
      await write(
        'POST /api/v1/board-templates/{templateId}/boards',
        `/api/v1/board-templates/${made.template._id}/boards`,
        { name: 'From the plan' },
        [
          'board.created',
          ...(
            [
              ['list.created', made.template.content.lists],
              ['label.created', made.template.content.labels],
              ['custom_field.created', made.template.content.customFields],
              ['rule.created', made.template.content.rules],
            ] as const
          ).flatMap(([type, parts]) => (parts.length ? [type] : [])),
        ],
        teamSubject,
      );
      await write(
        'DELETE /api/v1/board-templates/{templateId}',
        `/api/v1/board-templates/${made.template._id}`,
        undefined,
        ['board_template.deleted'],
        teamSubject,
      );
      // recurring cards (the cards they make are tested in test/e2e/recurrences.test.ts)
      const schedule = { rule: 'FREQ=DAILY', startsAt: '2031-03-01T09:00', timeZone: 'Europe/Berlin' };
      await unrecorded('POST /api/v1/boards/{boardId}/recurrences/preview', `/api/v1/boards/${board._id}/recurrences/preview`, schedule);
      const recurrence = (
        await write(
          'POST /api/v1/boards/{boardId}/recurrences',
          `/api/v1/boards/${board._id}/recurrences`,
          { ...schedule, name: 'Daily', card: { name: 'Daily' }, list: list._id, enabled: false },
          ['recurrence.created'],
          boardSubject,
        )
      ).recurrence;
      await write(
        'PATCH /api/v1/recurrences/{recurrenceId}',
        `/api/v1/recurrences/${recurrence._id}`,
        { name: 'Every day' },
        ['recurrence.updated'],
        boardSubject,
      );
      await write('DELETE /api/v1/recurrences/{recurrenceId}', `/api/v1/recurrences/${recurrence._id}`, undefined, ['recurrence.deleted'], boardSubject);

      // destructive, last: a board deleted, a member removed, the owner leaving a team and a company
      await write('DELETE /api/v1/boards/{boardId}', `/api/v1/boards/${board2._id}`, undefined, ['board.deleted'], company);
      const leaving = await addMember(t.services, { companyId, email: 'leo@acme.test' });
      await write(
        'DELETE /api/v1/companies/{companyId}/members/{userId}',
        `/api/v1/companies/${companyId}/members/${leaving.userId}`,
        undefined,
        ['member.removed'],
        company,
      );
      await write('DELETE /api/v1/teams/{teamId}/members/me', `/api/v1/teams/${team.team._id}/members/me`, undefined, ['team.member.left'], company);
      // Initech, created above: another owner first, so the tenant is not its last
      await addMember(t.services, { companyId: newCompany.company._id, email: 'iris@initech.test', role: 'owner' });
      await write('DELETE /api/v1/companies/{companyId}/members/me', `/api/v1/companies/${newCompany.company._id}/members/me`, undefined, ['member.left'], {
        company: newCompany.company._id,
      });

      // every write operation the API documents ran above
      const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
        paths: Record<string, Record<string, unknown>>;
        components: { schemas: Record<string, { required?: string[] }> };
      };
      // the event's shape is published once, as a component, and the activity reads answer it
      assert.deepEqual([...(doc.components.schemas.Event?.required ?? [])].sort(), [
        '_id',
        'actor',
        'board',
        'card',
        'company',
        'createdAt',
        'data',
        'requestId',
        'team',
        'type',
      ]);
      for (const of of ['cards/{cardId}', 'boards/{boardId}', 'teams/{teamId}']) {
        assert.ok(JSON.stringify(doc.paths[`/api/v1/${of}/activity`]).includes('"#/components/schemas/Event"'), `${of}/activity references Event`);
      }
      // Signing in (tag `people`: sessions, passwords, setup) changes a person's credentials, not the
      // boards' world, and records no event (docs/people.md); test/e2e/people-*.test.ts run those.
      const ofPeople = (op: unknown) => ((op as { tags?: string[] }).tags ?? []).includes('people');
      const writes = Object.entries(doc.paths).flatMap(([p, ops]) =>
        Object.entries(ops)
          .filter(([m, op]) => ['post', 'patch', 'delete', 'put'].includes(m) && !ofPeople(op))
          .map(([m]) => `${m.toUpperCase()} ${p}`),
      );
      assert.deepEqual(
        writes.filter((route) => !covered.has(route) && !exempted.has(route)),
        [],
        'write operations this test does not run',
      );
      assert.deepEqual(
        Object.keys(EXEMPT).filter((route) => !exempted.has(route) || !writes.includes(route)),
        [],
        'exempt operations not run, or not in /openapi.json',
      );
      assert.deepEqual(
        [...exempted].filter((route) => covered.has(route)),
        [],
        'an exempt operation recorded events elsewhere in this test',
      );

      // refused requests record nothing
      await refused('PATCH', `/api/v1/cards/${card._id}`, { dueDate: 'soon' }, 400);
      await refused('POST', `/v2/cards/${card._id}/labels`, { labels: ['0'.repeat(24)] }, 400);
      await refused('PATCH', `/api/v1/cards/${card._id}`, { name: 'not yours' }, 404, other.apiKey);
      await refused('POST', `/api/v1/cards/${card._id}/comments`, { content: 'not yours' }, 404, other.apiKey);
      await refused('POST', `/api/v1/teams/${teamId}/members`, { userId: member.userId }, 409);
      const cheer = await send('POST', `/api/v1/cards/${card._id}/cheers`, { content: '👍' });
      assert.equal(cheer.res.statusCode, 201);
      await refused('POST', `/api/v1/cards/${card._id}/cheers`, { content: '👍' }, 409);
      await refused('POST', `/api/v1/companies/${companyId}/members`, { email: 'new@acme.test', fullName: 'Again', role: 'member' }, 409);
    });

    it('records one event per card of a bulk request of 100, sharing its request id; none when its last item fails', async () => {
      const { companyId, teamId } = t.tenant;
      const board = (await send('POST', `/api/v1/boards?teamId=${teamId}`, { name: 'Bulk' })).res.json().board;
      const list = (await send('POST', '/api/v1/lists', { board: board._id, name: 'L' })).res.json().list;
      const cardIds: string[] = [];
      for (let i = 0; i < 100; i++) cardIds.push((await send('POST', '/api/v1/cards', { list: list._id, name: `C${i}` })).res.json().card._id);
      const cards = cardIds.map((cardId, i) => ({ cardId, companyId, teamId, update: { name: `Renamed ${i}` } }));

      const bulk = await send('PATCH', '/api/v1/cards/update-multi-team', { cards });
      assert.equal(bulk.res.statusCode, 200, bulk.res.body);
      const events = await eventsOf(bulk.requestId);
      assert.equal(events.length, 100);
      assert.deepEqual(events.map((e) => e.card_id).sort(), [...cardIds].sort());
      assert.ok(events.every((e) => e.type === 'card.updated' && e.request_id === bulk.requestId));
      assert.deepEqual(JSON.parse((events.find((e) => e.card_id === cardIds[7]) as EventRow).data), {
        fields: ['name'],
        before: { name: 'C7' },
        after: { name: 'Renamed 7' },
      });

      // the last item names a card of another company: a 404 for that item, and nothing written
      const foreign = (
        await send(
          'POST',
          '/api/v1/cards',
          {
            list: (
              await send(
                'POST',
                '/api/v1/lists',
                {
                  board: (await send('POST', `/api/v1/boards?teamId=${other.teamId}`, { name: 'G' }, undefined, other.apiKey)).res.json().board._id,
                  name: 'G',
                },
                undefined,
                other.apiKey,
              )
            ).res.json().list._id,
            name: 'G',
          },
          undefined,
          other.apiKey,
        )
      ).res.json().card._id;
      const failing = await send('PATCH', '/api/v1/cards/update-multi-team', {
        cards: [...cards.slice(0, 99), { cardId: foreign, companyId, teamId, update: { name: 'x' } }],
      });
      assert.ok(failing.res.statusCode >= 400 && failing.res.statusCode < 500, failing.res.body);
      assert.deepEqual(await eventsOf(failing.requestId), []);
    });
  });
}
