/**
 * Conditional requests: ETag / If-None-Match on the reads, If-Match on the writes of each kind of
 * record (a stale `__v` answers 412 and changes nothing), and Location on every 201.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import { Type } from 'typebox';
import { operations } from '../../src/routes/operation.ts';
import { type ApiWorld, apiWorld } from '../support/api-world.ts';
import { multipart } from '../support/fixtures.ts';
import { type Api, apiClient, bearer, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';

const STRONG_TAG = /^"[A-Za-z0-9_-]{27}"$/;
/** The tag of a read of one record: its `__v`, a dot, then the answer's hash. */
const REVISION_TAG = /^"(\d+)\.[A-Za-z0-9_-]{27}"$/;
const VERSIONED = {
  card: 'cards',
  list: 'lists',
  board: 'boards',
  label: 'labels',
  checklist: 'checklists',
  item: 'checklist_items',
  comment: 'comments',
  discussion: 'discussions',
} as const;
type Kind = keyof typeof VERSIONED;

for (const engine of ENGINES) {
  describe(`conditional requests [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    let w: ApiWorld;

    before(async () => {
      t = await buildTestApp(engine);
      api = apiClient(t, t.tenant.apiKey);
      w = await apiWorld(t);
    });
    after(() => t.dispose());

    const send = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, headers: Record<string, string>, payload?: unknown) =>
      t.app.inject({ method, url, headers: { ...bearer(t.tenant.apiKey), ...headers }, ...(payload !== undefined ? { payload: payload as object } : {}) });

    async function versionOf(kind: Kind, id: string): Promise<number | undefined> {
      const row = await t.storage.db.selectFrom(VERSIONED[kind]).select('version').where('id', '=', id).executeTakeFirst();
      return row === undefined ? undefined : Number(row.version);
    }

    /** The reads of one record with a `__v`, whose tag names it, and a write of that record. */
    const revisionReads = () => [
      {
        key: 'card',
        url: () => `/api/v1/cards/${w.cardId}`,
        write: { method: 'PATCH' as const, url: () => `/api/v1/cards/${w.cardId}`, body: { name: `Tagged ${engine}` } },
      },
      {
        key: 'board',
        url: () => `/api/v1/boards/${w.boardId}`,
        write: { method: 'PATCH' as const, url: () => `/api/v1/boards/${w.boardId}`, body: { name: `Tagged ${engine}` } },
      },
      {
        key: 'checklistItem',
        url: () => `/api/v1/checklist-items/${w.itemId}`,
        write: { method: 'PATCH' as const, url: () => `/api/v1/checklist-items/${w.itemId}`, body: { name: `Tagged ${engine}` } },
      },
    ];

    describe('ETag and If-None-Match on every GET family', () => {
      const reads = (): string[] => [
        '/api/v1/companies',
        '/api/v1/teams',
        '/api/v1/boards',
        `/api/v1/boards/${w.boardId}`,
        `/api/v1/boards/${w.boardId}/lists`,
        '/api/v1/lists',
        '/api/v1/label-colors',
        `/api/v1/boards/${w.boardId}/labels`,
        `/api/v1/cards/${w.cardId}`,
        `/api/v1/lists/${w.listId}/cards`,
        `/api/v1/cards/${w.cardId}/company-team`,
        `/api/v1/cards/${w.cardId}/comments`,
        `/api/v1/comments/${w.commentId}`,
        `/api/v1/lists/${w.listId}`,
        `/api/v1/cards/${w.cardId}/checklists`,
        `/api/v1/checklists/${w.checklistId}/items`,
        `/api/v1/checklist-items/${w.itemId}`,
        '/api/v1/my-tasks',
        `/api/v1/my-tasks/lists/${w.listId}`,
        '/api/v1/me',
        '/api/v1/api-keys',
      ];

      it('answers a strong ETag and Cache-Control: private, no-cache, and 304 with no body when If-None-Match names it', async () => {
        for (const url of reads()) {
          // a card's first view by the caller changes it (seen): look once, then compare
          await api('GET', url);
          const first = await api('GET', url);
          assert.equal(first.statusCode, 200, `${url}: ${first.body}`);
          const tag = first.headers.etag as string;
          const record = revisionReads().find((read) => read.url() === url);
          if (record) {
            assert.equal(REVISION_TAG.exec(tag)?.[1], String(first.json()[record.key].__v), `${url}: ${tag} names the revision answered`);
          } else {
            assert.match(tag, STRONG_TAG, url);
          }
          assert.equal(first.headers['cache-control'], 'private, no-cache', url);

          const again = await send('GET', url, { 'if-none-match': tag });
          assert.equal(again.statusCode, 304, url);
          assert.equal(again.body, '', url);
          assert.equal(again.headers.etag, tag, url);
          assert.equal(again.headers['cache-control'], 'private, no-cache', url);
          // weak comparison, and a list of tags
          assert.equal((await send('GET', url, { 'if-none-match': `"other", W/${tag}` })).statusCode, 304, url);

          const other = await send('GET', url, { 'if-none-match': '"something-else"' });
          assert.equal(other.statusCode, 200, url);
          assert.deepEqual(other.json(), first.json(), url);
        }
      });

      it('gives a new tag when what the answer shows changes, even when the record itself does not (a label renamed on a card)', async () => {
        const before = await api('GET', `/api/v1/cards/${w.cardId}`);
        const tag = before.headers.etag as string;
        await api('POST', `/v2/cards/${w.cardId}/labels`, { labels: [w.labelId] });
        const labelled = await send('GET', `/api/v1/cards/${w.cardId}`, { 'if-none-match': tag });
        assert.equal(labelled.statusCode, 200);
        const cardVersion = labelled.json().card.__v;
        const renamed = await api('PATCH', `/api/v1/labels/${w.labelId}`, { name: `Renamed ${engine}` });
        assert.equal(renamed.statusCode, 200, renamed.body);
        const after = await send('GET', `/api/v1/cards/${w.cardId}`, { 'if-none-match': labelled.headers.etag as string });
        assert.equal(after.statusCode, 200);
        assert.equal(after.json().card.__v, cardVersion, "the label's rename is not a change of the card");
        assert.notEqual(after.headers.etag, labelled.headers.etag);
        await api('POST', `/v2/cards/${w.cardId}/labels`, { labels: [w.labelId] });
      });

      it('takes the ETag of a read of the card, the board or an item in If-Match: the write goes ahead once, then is stale', async () => {
        for (const read of revisionReads()) {
          await api('GET', read.url()); // a card's first view by the caller changes it (seen)
          const first = await api('GET', read.url());
          const tag = first.headers.etag as string;
          const done = await send(read.write.method, read.write.url(), { 'if-match': tag }, read.write.body);
          assert.equal(done.statusCode, 200, `${read.url()}: ${done.body}`);
          const current = first.json()[read.key].__v + 1;
          assert.equal(done.json()[read.key].__v, current, read.url());
          const stale = await send(read.write.method, read.write.url(), { 'if-match': tag }, read.write.body);
          assert.equal(stale.statusCode, 412, `${read.url()}: ${stale.body}`);
          assert.deepEqual(stale.json().details[0].__v, current, read.url());
          const again = await send('GET', read.url(), { 'if-none-match': tag });
          assert.equal(again.statusCode, 200, read.url());
          assert.equal(REVISION_TAG.exec(again.headers.etag as string)?.[1], String(current), read.url());
        }
      });

      it("never takes a tag that names no revision in If-Match (a list's, or a weak one): 412", async () => {
        const page = await api('GET', `/api/v1/lists/${w.listId}/cards`);
        const card = await api('GET', `/api/v1/cards/${w.cardId}`);
        for (const tag of [page.headers.etag as string, `W/${card.headers.etag as string}`]) {
          const res = await send('PATCH', `/api/v1/cards/${w.cardId}`, { 'if-match': tag }, { name: 'Never' });
          assert.equal(res.statusCode, 412, `${tag}: ${res.body}`);
        }
        assert.notEqual((await api('GET', `/api/v1/cards/${w.cardId}`)).json().card.name, 'Never');
      });

      it('puts no ETag on writes and errors', async () => {
        const created = await api('POST', '/api/v1/cards', { list: w.listId, name: 'No tag' });
        assert.equal(created.statusCode, 201);
        assert.equal(created.headers.etag, undefined);
        const missing = await api('GET', '/api/v1/cards/000000000000000000000000');
        assert.equal(missing.statusCode, 404);
        assert.equal(missing.headers.etag, undefined);
      });
    });

    describe('If-Match on the writes of each kind', () => {
      interface Write {
        kind: Kind;
        id: () => string;
        method: 'POST' | 'PATCH' | 'DELETE';
        url: () => string;
        body?: () => unknown;
      }
      const writes: Write[] = [
        { kind: 'card', id: () => w.cardId, method: 'PATCH', url: () => `/api/v1/cards/${w.cardId}`, body: () => ({ name: 'Stale' }) },
        { kind: 'card', id: () => w.cardId, method: 'PATCH', url: () => `/api/v1/cards/${w.cardId}/position`, body: () => ({ position: 'top' }) },
        { kind: 'card', id: () => w.cardId, method: 'PATCH', url: () => `/api/v1/cards/${w.cardId}/archive` },
        { kind: 'card', id: () => w.cardId, method: 'POST', url: () => `/v2/cards/${w.cardId}/members`, body: () => ({ members: [w.userId] }) },
        { kind: 'card', id: () => w.cardId, method: 'POST', url: () => `/v2/cards/${w.cardId}/labels`, body: () => ({ labels: [w.labelId] }) },
        { kind: 'card', id: () => w.cardId, method: 'POST', url: () => `/api/v1/cards/${w.cardId}/comments`, body: () => ({ content: 'Stale' }) },
        { kind: 'card', id: () => w.cardId, method: 'POST', url: () => `/api/v1/cards/${w.cardId}/checklists`, body: () => ({ name: 'Stale' }) },
        { kind: 'card', id: () => w.cardId, method: 'POST', url: () => `/api/v1/cards/${w.cardId}/cheers`, body: () => ({ content: '👍' }) },
        {
          kind: 'card',
          id: () => w.cardId,
          method: 'PATCH',
          url: () => `/api/v1/cards/${w.cardId}/attachments/${w.attachmentId}`,
          body: () => ({ name: 'Stale' }),
        },
        { kind: 'list', id: () => w.listId, method: 'PATCH', url: () => `/api/v1/lists/${w.listId}`, body: () => ({ name: 'Stale' }) },
        {
          kind: 'board',
          id: () => w.boardId,
          method: 'POST',
          url: () => `/api/v1/boards/${w.boardId}/labels`,
          body: () => ({ name: 'Stale', color: '000000000000000000000001' }),
        },
        { kind: 'label', id: () => w.labelId, method: 'PATCH', url: () => `/api/v1/labels/${w.labelId}`, body: () => ({ name: 'Stale' }) },
        { kind: 'label', id: () => w.labelId, method: 'DELETE', url: () => `/api/v1/labels/${w.labelId}` },
        { kind: 'checklist', id: () => w.checklistId, method: 'PATCH', url: () => `/api/v1/checklists/${w.checklistId}`, body: () => ({ name: 'Stale' }) },
        {
          kind: 'checklist',
          id: () => w.checklistId,
          method: 'PATCH',
          url: () => `/api/v1/checklists/${w.checklistId}/position`,
          body: () => ({ position: 'top' }),
        },
        { kind: 'checklist', id: () => w.checklistId, method: 'POST', url: () => `/api/v1/checklists/${w.checklistId}/items`, body: () => ({ name: 'Stale' }) },
        { kind: 'checklist', id: () => w.checklistId, method: 'DELETE', url: () => `/api/v1/checklists/${w.checklistId}` },
        { kind: 'item', id: () => w.itemId, method: 'PATCH', url: () => `/api/v1/checklist-items/${w.itemId}`, body: () => ({ name: 'Stale' }) },
        { kind: 'item', id: () => w.itemId, method: 'PATCH', url: () => `/api/v1/checklist-items/${w.itemId}/complete`, body: () => ({ status: false }) },
        { kind: 'item', id: () => w.itemId, method: 'POST', url: () => `/api/v1/checklist-items/${w.itemId}/members`, body: () => ({ members: [w.userId] }) },
        { kind: 'item', id: () => w.itemId, method: 'DELETE', url: () => `/api/v1/checklist-items/${w.itemId}` },
        { kind: 'comment', id: () => w.commentId, method: 'PATCH', url: () => `/api/v1/comments/${w.commentId}`, body: () => ({ content: 'Stale' }) },
        {
          kind: 'comment',
          id: () => w.commentId,
          method: 'POST',
          url: () => `/api/v1/comments/${w.commentId}/discussions`,
          body: () => ({ content: 'Stale' }),
        },
        { kind: 'comment', id: () => w.commentId, method: 'DELETE', url: () => `/api/v1/comments/${w.commentId}` },
        {
          kind: 'discussion',
          id: () => w.discussionId,
          method: 'PATCH',
          url: () => `/api/v1/discussions/${w.discussionId}`,
          body: () => ({ content: 'Stale' }),
        },
        { kind: 'discussion', id: () => w.discussionId, method: 'DELETE', url: () => `/api/v1/discussions/${w.discussionId}` },
        // the lifecycle writes: a stale If-Match keeps the card, list and board as they are
        { kind: 'card', id: () => w.cardId, method: 'DELETE', url: () => `/api/v1/cards/${w.cardId}` },
        { kind: 'list', id: () => w.listId, method: 'PATCH', url: () => `/api/v1/lists/${w.listId}/archive` },
        { kind: 'list', id: () => w.listId, method: 'PATCH', url: () => `/api/v1/lists/${w.listId}/unarchive` },
        { kind: 'list', id: () => w.listId, method: 'DELETE', url: () => `/api/v1/lists/${w.listId}?cascade=true` },
        { kind: 'board', id: () => w.boardId, method: 'PATCH', url: () => `/api/v1/boards/${w.boardId}`, body: () => ({ name: 'Stale' }) },
        { kind: 'board', id: () => w.boardId, method: 'PATCH', url: () => `/api/v1/boards/${w.boardId}/archive` },
        { kind: 'board', id: () => w.boardId, method: 'PATCH', url: () => `/api/v1/boards/${w.boardId}/unarchive` },
        { kind: 'board', id: () => w.boardId, method: 'DELETE', url: () => `/api/v1/boards/${w.boardId}` },
      ];

      /** Whether the card, list or board is still there and unarchived (its `deleted_at` and `archived` as the world made them). */
      async function liveAndUnarchived(table: 'cards' | 'lists' | 'boards', id: string): Promise<boolean> {
        const row = await t.storage.db.selectFrom(table).select(['deleted_at', 'archived']).where('id', '=', id).executeTakeFirst();
        return row !== undefined && row.deleted_at === null && Number(row.archived) === 0;
      }

      it('answers 412 precondition_failed with the current __v to a stale If-Match, and changes nothing', async () => {
        for (const write of writes) {
          const label = `${write.method} ${write.url()}`;
          const current = (await versionOf(write.kind, write.id())) as number;
          const cardBefore = await versionOf('card', w.cardId);
          const [boardLabels] = await Promise.all([
            t.storage.db
              .selectFrom('labels')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow(),
          ]);
          const cardLabels = async () =>
            (await t.storage.db.selectFrom('card_labels').select('label_id').where('card_id', '=', w.cardId).orderBy('label_id').execute()).map(
              (row) => row.label_id,
            );
          const cardLabelsBefore = await cardLabels();
          const res = await send(write.method, write.url(), { 'if-match': `"${current + 7}", W/"${current}"` }, write.body?.());
          assert.equal(res.statusCode, 412, `${label}: ${res.body}`);
          const error = res.json();
          assert.equal(error.code, 'precondition_failed', label);
          assert.deepEqual(error.details, [{ field: 'headers.if-match', message: `the ${write.kind} is at __v ${current}`, __v: current }], label);
          assert.equal(await versionOf(write.kind, write.id()), current, `${label}: the record is as it was`);
          assert.equal(await versionOf('card', w.cardId), cardBefore, `${label}: the card is as it was`);
          const labelsAfter = await t.storage.db
            .selectFrom('labels')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow();
          assert.equal(Number(labelsAfter.n), Number(boardLabels.n), label);
          // (the toggle's label statement runs before If-Match is compared, on PostgreSQL: rolled back with it)
          assert.deepEqual(await cardLabels(), cardLabelsBefore, `${label}: the card's labels are as they were`);
          for (const [table, id] of [
            ['cards', w.cardId],
            ['lists', w.listId],
            ['boards', w.boardId],
          ] as const) {
            assert.ok(await liveAndUnarchived(table, id), `${label}: the ${table} row is still there, unarchived`);
          }
        }
      });

      it('goes ahead with the lifecycle writes when If-Match names the current __v', async () => {
        const board = (await api('POST', `/api/v1/boards?teamId=${w.teamId}`, { name: 'Lifecycle' })).json().board;
        const list = (await api('POST', '/api/v1/lists', { board: board._id, name: 'L' })).json().list;
        const card = (await api('POST', '/api/v1/cards', { list: list._id, name: 'C' })).json().card;
        const steps: { kind: Kind; id: string; method: 'PATCH' | 'DELETE'; url: string }[] = [
          { kind: 'list', id: list._id, method: 'PATCH', url: `/api/v1/lists/${list._id}/archive` },
          { kind: 'list', id: list._id, method: 'PATCH', url: `/api/v1/lists/${list._id}/unarchive` },
          { kind: 'board', id: board._id, method: 'PATCH', url: `/api/v1/boards/${board._id}/archive` },
          { kind: 'board', id: board._id, method: 'PATCH', url: `/api/v1/boards/${board._id}/unarchive` },
          { kind: 'card', id: card._id, method: 'DELETE', url: `/api/v1/cards/${card._id}` },
          { kind: 'list', id: list._id, method: 'DELETE', url: `/api/v1/lists/${list._id}` },
          { kind: 'board', id: board._id, method: 'DELETE', url: `/api/v1/boards/${board._id}` },
        ];
        for (const step of steps) {
          const current = (await versionOf(step.kind, step.id)) as number;
          const res = await send(step.method, step.url, { 'if-match': `"${current}"` });
          assert.equal(res.statusCode, 200, `${step.method} ${step.url}: ${res.body}`);
        }
        assert.equal((await api('GET', `/api/v1/boards/${board._id}`)).statusCode, 404);
      });

      it('goes ahead when If-Match names the current __v (or "*"), and the record changes once', async () => {
        for (const write of writes.filter((x) => x.method === 'PATCH' && x.body)) {
          const label = `${write.method} ${write.url()}`;
          const current = (await versionOf(write.kind, write.id())) as number;
          const res = await send(write.method, write.url(), { 'if-match': `"${current}"` }, write.body?.());
          assert.equal(res.statusCode, 200, `${label}: ${res.body}`);
          assert.ok(((await versionOf(write.kind, write.id())) as number) > current, label);
        }
        const star = await send('PATCH', `/api/v1/cards/${w.cardId}`, { 'if-match': '*' }, { name: 'Any revision' });
        assert.equal(star.statusCode, 200, star.body);
        const current = (await versionOf('card', w.cardId)) as number;
        const bare = await send('PATCH', `/api/v1/cards/${w.cardId}`, { 'if-match': String(current) }, { name: 'Bare' });
        assert.equal(bare.statusCode, 200, bare.body);
        assert.equal(bare.json().card.__v, current + 1);
      });

      it('answers 404, not 412, for a record out of reach (its revision does not leak)', async () => {
        const other = await t.services.db.selectFrom('cards').select('id').where('id', '=', w.cardId).executeTakeFirstOrThrow();
        const stranger = await import('../../src/domain/account/bootstrap.ts').then((m) =>
          m.bootstrap(t.services, { company: 'Globex', team: 'Ops', email: 'owner@globex.test', fullName: 'Gina Globex' }),
        );
        const res = await t.app.inject({
          method: 'PATCH',
          url: `/api/v1/cards/${other.id}`,
          headers: { ...bearer(stranger.apiKey), 'if-match': '"12345"' },
          payload: { name: 'x' },
        });
        assert.equal(res.statusCode, 404, res.body);
        for (const [method, url] of [
          ['DELETE', `/api/v1/cards/${w.cardId}`],
          ['PATCH', `/api/v1/lists/${w.listId}/archive`],
          ['DELETE', `/api/v1/lists/${w.listId}?cascade=true`],
          ['PATCH', `/api/v1/boards/${w.boardId}/archive`],
          ['DELETE', `/api/v1/boards/${w.boardId}`],
        ] as const) {
          const lifecycle = await t.app.inject({ method, url, headers: { ...bearer(stranger.apiKey), 'if-match': '"12345"' } });
          assert.equal(lifecycle.statusCode, 404, `${method} ${url}: ${lifecycle.body}`);
        }
      });

      it('refuses If-Match where it does not apply, and a malformed one, with a 400', async () => {
        const copy = await send('POST', `/api/v1/cards/${w.cardId}/copy`, { 'if-match': '"1"' }, { list: w.listId });
        assert.equal(copy.statusCode, 400, copy.body);
        assert.equal(copy.json().details[0].field, 'headers.if-match');
        const create = await send('POST', '/api/v1/lists', { 'if-match': '"1"' }, { board: w.boardId, name: 'x' });
        assert.equal(create.statusCode, 400, create.body);
        const malformed = await send('PATCH', `/api/v1/cards/${w.cardId}`, { 'if-match': 'seven' }, { name: 'x' });
        assert.equal(malformed.statusCode, 400, malformed.body);
        assert.equal(malformed.json().code, 'validation_failed');
      });

      it('ignores If-Match on reads', async () => {
        const res = await send('GET', `/api/v1/cards/${w.cardId}`, { 'if-match': '"999"' });
        assert.equal(res.statusCode, 200);
      });
    });

    describe('Location on every 201', () => {
      it('points at the GET that shows the new object', async () => {
        const created: { url: string; body?: unknown; key: string; location: (o: Record<string, string>) => string; upload?: boolean }[] = [
          { url: '/api/v1/companies', body: { name: 'Initech' }, key: 'company', location: () => '/api/v1/companies' },
          {
            url: `/api/v1/companies/${w.companyId}/members`,
            body: { email: 'm@acme.test', fullName: 'Milton', role: 'member' },
            key: 'member',
            location: () => '/api/v1/companies',
          },
          { url: `/api/v1/teams?companyId=${w.companyId}`, body: { name: 'Team B' }, key: 'team', location: () => `/api/v1/teams?companyId=${w.companyId}` },
          { url: `/api/v1/boards?teamId=${w.teamId}`, body: { name: 'B2' }, key: 'board', location: (o) => `/api/v1/boards/${o._id}` },
          { url: '/api/v1/lists', body: { board: w.boardId, name: 'L2' }, key: 'list', location: (o) => `/api/v1/lists/${o._id}` },
          {
            url: `/api/v1/boards/${w.boardId}/labels`,
            body: { name: 'L', color: '000000000000000000000002' },
            key: 'label',
            location: () => `/api/v1/boards/${w.boardId}/labels`,
          },
          { url: '/api/v1/cards', body: { list: w.listId, name: 'C2' }, key: 'card', location: (o) => `/api/v1/cards/${o._id}` },
          { url: `/api/v1/cards/${w.cardId}/copy`, body: { list: w.listId }, key: 'card', location: (o) => `/api/v1/cards/${o._id}` },
          { url: `/api/v1/cards/${w.cardId}/comments`, body: { content: 'c' }, key: 'comment', location: (o) => `/api/v1/comments/${o._id}` },
          { url: `/api/v1/cards/${w.cardId}/checklists`, body: { name: 'k' }, key: 'checklist', location: () => `/api/v1/cards/${w.cardId}/checklists` },
          { url: `/api/v1/cards/${w.cardId}/cheers`, body: { content: '🚀' }, key: 'cheer', location: () => `/api/v1/cards/${w.cardId}` },
          {
            url: `/api/v1/cards/${w.cardId}/attachments`,
            body: { url: 'https://example.com/x', name: 'x' },
            key: 'attachment',
            location: () => `/api/v1/cards/${w.cardId}`,
          },
          {
            url: `/api/v1/cards/${w.cardId}/attachments`,
            key: 'attachment',
            upload: true,
            location: (o) => `/api/v1/cards/${w.cardId}/attachments/${o._id}/file`,
          },
          { url: '/api/v1/api-keys', body: { name: 'k2' }, key: 'apiKey', location: () => '/api/v1/api-keys' },
        ];
        for (const c of created) {
          let res;
          if (c.upload) {
            const form = multipart({}, { filename: 'a.txt', contentType: 'text/plain', content: Buffer.from('a') });
            res = await t.app.inject({ method: 'POST', url: c.url, headers: { ...bearer(t.tenant.apiKey), ...form.headers }, payload: form.payload });
          } else {
            res = await api('POST', c.url, c.body);
          }
          assert.equal(res.statusCode, 201, `${c.url}: ${res.body}`);
          const object = res.json()[c.key] as Record<string, string>;
          assert.equal(res.headers.location, c.location(object), c.url);
          const shown = await api('GET', res.headers.location as string);
          assert.equal(shown.statusCode, 200, `${res.headers.location}: ${shown.body}`);
          if (!c.upload && c.key !== 'apiKey' && c.key !== 'member')
            assert.ok(shown.body.includes(object._id as string), `${c.url}: ${res.headers.location} shows the new object`);
          // a list and a comment have a GET of their own: it answers the record Create answered
          if (c.key === 'list' || c.key === 'comment') assert.deepEqual(shown.json()[c.key], object, c.url);
        }
        // the rest, with the ids of the world
        const comment = await api('POST', `/api/v1/comments/${w.commentId}/discussions`, { content: 'r' });
        assert.equal(comment.headers.location, `/api/v1/cards/${w.cardId}/comments`);
        const item = await api('POST', `/api/v1/checklists/${w.checklistId}/items`, { name: 'i' });
        assert.equal(item.headers.location, `/api/v1/checklist-items/${item.json().checklistItem._id}`);
        const cheer = await api('POST', `/api/v1/comments/${w.commentId}/cheers`, { content: '🚀' });
        assert.equal(cheer.headers.location, `/api/v1/cards/${w.cardId}/comments`);
      });

      it('has a Location for every operation that answers 201: one cannot be declared without it', async () => {
        const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
          paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
        };
        const created = Object.values(document.paths).flatMap((operations) => Object.values(operations).filter((operation) => operation.responses?.['201']));
        assert.ok(created.length >= 20, `${created.length} operations answer 201`);
        // every route that answers 201 is declared through operations(), which refuses one without its location
        const bare = Fastify();
        const route = operations(bare, ['test']);
        const declaration = {
          tier: 'low',
          operationId: 'x',
          summary: 'X',
          querystring: Type.Object({}),
          answer: ['x', Type.Object({})],
          status: 201,
          message: 'x',
        } as const;
        assert.throws(() => route('POST /x', declaration as never, async () => ({})), /POST \/x: a 201 needs its location/);
        await bare.close();
      });
    });
  });
}
