import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SearchHit } from '../../src/schemas/search.ts';
import { SHORT_MATCHES } from '../../src/storage/repositories/search.ts';
import { cardRow, multipart } from '../support/fixtures.ts';
import { type Api, apiClient, bearer, buildTestApp, ENGINES, type OtherCompany, otherCompany, type TestApp } from '../support/harness.ts';
import { assertSchema } from '../support/schema.ts';

interface Hit {
  type: string;
  _id: string;
  title: string;
  snippet: { text: string; highlights: { start: number; length: number }[] };
  archived: boolean;
  card: { _id: string; name: string } | null;
  list: { _id: string; name: string } | null;
  board: { _id: string; name: string };
  team: { _id: string; name: string };
  company: { _id: string; name: string };
}

/** A board with lists and cards made through the API (the one change path), as `api`. */
async function world(api: Api, teamId: string, board: string) {
  const post = async (url: string, body: unknown, key: string) => {
    const res = await api('POST', url, body);
    assert.equal(res.statusCode, 201, `${url}: ${res.body}`);
    return res.json()[key] as { _id: string };
  };
  const boardId = (await post(`/api/v1/boards?teamId=${teamId}`, { name: board }, 'board'))._id;
  const doing = (await post('/api/v1/lists', { board: boardId, name: 'Doing' }, 'list'))._id;
  const done = (await post('/api/v1/lists', { board: boardId, name: 'Done' }, 'list'))._id;
  const card = async (name: string, description = '', list = doing) =>
    (await post('/api/v1/cards', { list, name, ...(description ? { description } : {}) }, 'card'))._id;
  return { boardId, doing, done, card, post };
}

const searchUrl = (q: string, extra = '') => `/api/v1/search?q=${encodeURIComponent(q)}${extra}`;

for (const engine of ENGINES) {
  describe(`search [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    let other: OtherCompany;
    const ids: Record<string, string> = {};

    async function hits(q: string, extra = '', as: Api = api): Promise<Hit[]> {
      const res = await as('GET', searchUrl(q, extra));
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.deepEqual(Object.keys(body).sort(), ['hits', 'message', 'nextCursor']);
      for (const hit of body.hits) assertSchema(SearchHit, hit);
      return body.hits;
    }
    const titles = async (q: string, extra = '&types=card', as: Api = api) => (await hits(q, extra, as)).map((h) => h.title).sort();

    before(async () => {
      t = await buildTestApp(engine);
      api = apiClient(t, t.tenant.apiKey);
      other = await otherCompany(t);
      const w = await world(api, t.tenant.teamId, 'Roadmap');
      ids.board = w.boardId;
      ids.doing = w.doing;
      ids.login = await w.card('Fix login page', 'The Café menu breaks on small screens');
      ids.logout = await w.card('Logout flow', 'release notes mention login');
      ids.notes = await w.card('Write release notes', '', w.done);
      ids.tokyo = await w.card('東京都の会議', '会議室を予約する');
      ids.flaky = await w.card('Flaky test', 'login is flaky');
      ids.comment = (await w.post(`/api/v1/cards/${ids.login}/comments`, { content: 'Needs a second reviewer' }, 'comment'))._id;
      const checklist = (await w.post(`/api/v1/cards/${ids.notes}/checklists`, { name: 'Todo' }, 'checklist'))._id;
      ids.item = (await w.post(`/api/v1/checklists/${checklist}/items`, { name: 'Draft the changelog' }, 'checklistItem'))._id;
      // another company whose cards share every word
      const g = await world(other.api, other.teamId, 'Roadmap');
      await g.card('Fix login page', 'The Café menu breaks; release notes; login');
      await g.post(`/api/v1/cards/${await g.card('Secret reviewer plan')}/comments`, { content: 'Needs a second reviewer' }, 'comment');
    });
    after(() => t.dispose());

    // One table, run on both engines: the same queries give the same hits.
    const table: [string, string[]][] = [
      ['login', ['Fix login page', 'Flaky test', 'Logout flow']],
      ['LOGIN page', ['Fix login page']],
      ['log', ['Fix login page', 'Flaky test', 'Logout flow']],
      ['lo', ['Fix login page', 'Flaky test', 'Logout flow']],
      ['cafe', ['Fix login page']],
      ['CAFÉ menu', ['Fix login page']],
      ['"release notes"', ['Logout flow', 'Write release notes']],
      ['"notes release"', []],
      ['release -flaky', ['Logout flow', 'Write release notes']],
      ['login -"is flaky"', ['Fix login page', 'Logout flow']],
      ['login -lo', []],
      ['京都', ['東京都の会議']],
      ['東京都', ['東京都の会議']],
      ['予約', ['東京都の会議']],
      ['screens menu', ['Fix login page']],
      ['nothing-like-this', []],
      // words are found by their start, not their middle; punctuation between words is a phrase
      ['ogin', []],
      ['login-pa', ['Fix login page']],
      ['"page fix"', []],
      ['!!!', []],
    ];
    for (const [q, expected] of table) {
      it(`q=${q} finds ${JSON.stringify(expected)}`, async () => {
        assert.deepEqual(await titles(q), expected.sort());
      });
    }

    it('hits name where they live; title matches come first; snippets mark the words by offsets', async () => {
      const found = await hits('login', '&types=card');
      assert.equal(found[0]?.title, 'Fix login page');
      const first = found[0] as Hit;
      assert.equal(first.type, 'card');
      assert.equal(first._id, ids.login);
      assert.deepEqual(first.card, { _id: ids.login, name: 'Fix login page' });
      assert.deepEqual(first.list, { _id: ids.doing, name: 'Doing' });
      assert.deepEqual(first.board, { _id: ids.board, name: 'Roadmap' });
      assert.equal(first.team._id, t.tenant.teamId);
      assert.equal(first.company._id, t.tenant.companyId);
      assert.equal(first.archived, false);
      for (const hit of found) {
        assert.ok(hit.snippet.highlights.length > 0, JSON.stringify(hit));
        for (const { start, length } of hit.snippet.highlights) assert.equal(hit.snippet.text.slice(start, start + length).toLowerCase(), 'login');
      }
      const [cafe] = await hits('cafe');
      assert.ok(cafe);
      const mark = cafe.snippet.highlights[0] as { start: number; length: number };
      assert.equal(cafe.snippet.text.slice(mark.start, mark.start + mark.length), 'Café');
    });

    it('finds comments, checklist items, boards and lists, each in its card, list and board', async () => {
      const [comment] = await hits('reviewer');
      assert.equal(comment?.type, 'comment');
      assert.equal(comment?._id, ids.comment);
      assert.equal(comment?.card?._id, ids.login);
      assert.equal(comment?.title, 'Fix login page');
      const [item] = await hits('changelog');
      assert.equal(item?.type, 'checklistItem');
      assert.equal(item?._id, ids.item);
      assert.equal(item?.card?._id, ids.notes);
      assert.equal(item?.list?.name, 'Done');
      const board = await hits('roadmap');
      assert.deepEqual(
        board.map((h) => [h.type, h._id]),
        [['board', ids.board]],
      );
      const lists = await hits('doing', '&types=list');
      assert.deepEqual(
        lists.map((h) => [h.type, h._id, h.board._id]),
        [['list', ids.doing, ids.board]],
      );
    });

    it("never shows another company's words, not even as a count", async () => {
      for (const q of ['login', 'reviewer', 'cafe', 'roadmap', 'release notes']) {
        for (const hit of await hits(q)) assert.equal(hit.company._id, t.tenant.companyId, q);
        for (const hit of await hits(q, '', other.api)) assert.equal(hit.company._id, other.companyId, q);
      }
      assert.deepEqual(await titles('login', '&types=card', other.api), ['Fix login page']);
      const theirs = await other.api('GET', searchUrl('login', `&teamId=${t.tenant.teamId}`));
      assert.equal(theirs.statusCode, 404, theirs.body);
      const board = await other.api('GET', searchUrl('login', `&boardId=${ids.board}`));
      assert.equal(board.statusCode, 404, board.body);
    });

    it('narrows by team, board and types; pages by cursor without repeats', async () => {
      assert.equal((await hits('login', `&teamId=${t.tenant.teamId}&types=card`)).length, 3);
      assert.equal((await hits('login', `&boardId=${ids.board}&types=card,comment`)).length, 3);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await api('GET', searchUrl('o', `&limit=2${cursor ? `&cursor=${cursor}` : ''}`));
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        assert.ok(body.hits.length <= 2);
        seen.push(...body.hits.map((h: Hit) => h._id));
        cursor = body.nextCursor;
      } while (cursor);
      const all = (await hits('o', '&limit=200')).map((h) => h._id);
      assert.deepEqual(seen, all);
      assert.equal(new Set(seen).size, seen.length);
    });

    it('is current at once: a rename, a deletion and an archive change what is found', async () => {
      const w = await world(api, t.tenant.teamId, 'Scratch');
      const card = await w.card('Quokka habitat');
      assert.deepEqual(await titles('quokka'), ['Quokka habitat']);
      assert.equal((await api('PATCH', `/api/v1/cards/${card}`, { name: 'Wombat habitat' })).statusCode, 200);
      assert.deepEqual(await titles('quokka'), []);
      assert.deepEqual(await titles('wombat'), ['Wombat habitat']);
      const archived = await api('PATCH', '/api/v1/cards/archived', { cardIds: [card], status: true });
      assert.equal(archived.statusCode, 200, archived.body);
      assert.deepEqual(await titles('wombat'), []);
      const again = await hits('wombat is:archived', '&types=card');
      assert.deepEqual(
        again.map((h) => [h.title, h.archived]),
        [['Wombat habitat', true]],
      );
      // an archived board hides what is on it
      assert.equal((await api('PATCH', `/api/v1/cards/archived`, { cardIds: [card], status: false })).statusCode, 200);
      assert.deepEqual(await titles('wombat'), ['Wombat habitat']);
      assert.equal((await api('PATCH', `/api/v1/boards/${w.boardId}/archive`, {})).statusCode, 200);
      assert.deepEqual(await titles('wombat'), []);
      assert.deepEqual(
        (await hits('wombat is:archived', '&types=card')).map((h) => h.archived),
        [true],
      );
      const gone = await api('DELETE', `/api/v1/cards/${card}`);
      assert.ok(gone.statusCode < 300, gone.body);
      assert.deepEqual(await titles('wombat', '&types=card'), []);
      assert.deepEqual(await titles('wombat is:archived', '&types=card'), []);
    });

    it('operators: label, member, due, is, board, list, has, created — joined live', async () => {
      const w = await world(api, t.tenant.teamId, 'Operators board');
      const a = await w.card('Alpha walrus');
      const b = await w.card('Beta walrus');
      const c = await w.card('Gamma walrus', '', w.done);
      const label = (await w.post(`/api/v1/boards/${w.boardId}/labels`, { name: 'Bug', color: '000000000000000000000004' }, 'label'))._id;
      assert.equal((await api('POST', `/v2/cards/${a}/labels`, { labels: [label] })).statusCode, 200);
      assert.deepEqual(await titles('walrus label:bug'), ['Alpha walrus']);
      assert.deepEqual(await titles('label:BUG'), ['Alpha walrus']);
      // a renamed label changes what label: finds
      assert.equal((await api('PATCH', `/api/v1/labels/${label}`, { name: 'Defect' })).statusCode, 200);
      assert.deepEqual(await titles('walrus label:bug'), []);
      assert.deepEqual(await titles('walrus label:defect'), ['Alpha walrus']);

      assert.equal((await api('POST', `/v2/cards/${b}/members`, { members: [t.tenant.userId] })).statusCode, 200);
      assert.deepEqual(await titles('walrus member:me'), ['Beta walrus']);
      assert.deepEqual(await titles('walrus member:owner@acme.test'), ['Beta walrus']);
      assert.deepEqual(await titles('walrus member:"Olive Owner"'), ['Beta walrus']);
      assert.deepEqual(await titles('walrus member:"Nobody Here"'), []);

      const day = 24 * 3600 * 1000;
      assert.equal((await api('PATCH', `/api/v1/cards/${a}`, { dueDate: new Date(Date.now() - day).toISOString() })).statusCode, 200);
      assert.equal((await api('PATCH', `/api/v1/cards/${b}`, { dueDate: new Date(Date.now() + 3 * day).toISOString() })).statusCode, 200);
      assert.deepEqual(await titles('walrus due:overdue'), ['Alpha walrus']);
      assert.deepEqual(await titles('walrus due:day'), []);
      assert.deepEqual(await titles('walrus due:week'), ['Beta walrus']);
      assert.deepEqual(await titles('walrus due:month'), ['Beta walrus']);
      assert.deepEqual(await titles('walrus due:none'), ['Gamma walrus']);

      assert.equal((await api('PATCH', `/api/v1/cards/${c}`, { complete: { status: true } })).statusCode, 200);
      assert.deepEqual(await titles('walrus is:complete'), ['Gamma walrus']);
      assert.deepEqual(await titles('walrus is:incomplete'), ['Alpha walrus', 'Beta walrus']);
      assert.deepEqual(await titles('walrus list:done'), ['Gamma walrus']);
      assert.deepEqual(await titles('walrus list:"Doing"'), ['Alpha walrus', 'Beta walrus']);
      assert.deepEqual(await titles('walrus board:"operators board"'), ['Alpha walrus', 'Beta walrus', 'Gamma walrus']);
      assert.deepEqual(await titles('login board:"operators board"'), []);

      const { payload, headers } = multipart({ name: 'Notes' }, { filename: 'notes.txt', contentType: 'text/plain', content: Buffer.from('hi') });
      const uploaded = await t.app.inject({
        method: 'POST',
        url: `/api/v1/cards/${c}/attachments`,
        payload,
        headers: { ...headers, ...bearer(t.tenant.apiKey) },
      });
      assert.equal(uploaded.statusCode, 201, uploaded.body);
      assert.deepEqual(await titles('walrus has:attachments'), ['Gamma walrus']);
      assert.deepEqual(
        (await hits('notes', `&boardId=${w.boardId}&types=attachment`)).map((h) => h.card?._id),
        [c],
      );

      // created: the hit's own creation time
      const old = cardRow({ _id: w.doing, board: w.boardId, company: t.tenant.companyId, team: t.tenant.teamId }, t.tenant.userId, 'Ancient walrus', 9999, {
        created_at: new Date(Date.now() - 40 * day).toISOString(),
      });
      await t.services.db.insertInto('cards').values(old).execute();
      assert.deepEqual(await titles('walrus created:30'), ['Alpha walrus', 'Beta walrus', 'Gamma walrus']);
      assert.deepEqual(await titles('walrus created:60'), ['Alpha walrus', 'Ancient walrus', 'Beta walrus', 'Gamma walrus']);
      // operators only, no words
      assert.deepEqual(await titles(`label:defect board:"Operators board"`), ['Alpha walrus']);
    });

    it('a query of one- and two-letter words ranks only the most recently written matches (the cap)', async () => {
      const w = await world(api, t.tenant.teamId, 'Capped');
      const oldest = await w.card('Yak oldest');
      for (let i = 0; i < SHORT_MATCHES; i++) await w.card(`Yak ${i}`);
      const every = async (q: string) => {
        const found: string[] = [];
        let cursor: string | null = null;
        do {
          const res = await api('GET', searchUrl(q, `&boardId=${w.boardId}&types=card&limit=200${cursor ? `&cursor=${cursor}` : ''}`));
          assert.equal(res.statusCode, 200, res.body);
          found.push(...res.json().hits.map((h: Hit) => h._id));
          cursor = res.json().nextCursor;
        } while (cursor);
        return found;
      };
      const short = await every('y');
      assert.equal(short.length, SHORT_MATCHES);
      assert.ok(!short.includes(oldest), 'the oldest match is past the cap');
      // three letters are not capped
      const long = await every('yak');
      assert.equal(long.length, SHORT_MATCHES + 1);
      assert.ok(long.includes(oldest));
    });

    it('any query text answers 200 or a 400 in the contract form, never a 5xx', async () => {
      const pieces = [
        '"',
        '-',
        ':',
        'label:',
        'is:',
        '*',
        '%',
        '_',
        '\\',
        "'",
        '(',
        ')',
        'AND',
        'NOT',
        'é',
        '京',
        '😀',
        'a',
        'log',
        ' ',
        '  ',
        'due:week',
        'x"y',
      ];
      let seed = 7;
      const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      for (let i = 0; i < 150; i++) {
        const q = Array.from({ length: 1 + Math.floor(next() * 8) }, () => pieces[Math.floor(next() * pieces.length)]).join(next() < 0.5 ? '' : ' ');
        const res = await api('GET', searchUrl(q));
        assert.ok(res.statusCode === 200 || res.statusCode === 400, `${JSON.stringify(q)}: ${res.statusCode} ${res.body}`);
        if (res.statusCode === 400) assert.equal(res.json().code, 'validation_failed');
      }
    });

    it('a malformed query is a 400 that says what is wrong', async () => {
      for (const [q, says] of [
        ['"open quote', 'never closed'],
        ['due:someday', 'due:'],
        ['is:fancy', 'is:'],
        ['-alone', 'exclusions only'],
        ['created:0', 'created:'],
        ['   ', 'querystring.q'],
        ['bad\u0001char', 'querystring.q'],
      ] as const) {
        const res = await api('GET', searchUrl(q));
        assert.equal(res.statusCode, 400, `${q}: ${res.body}`);
        assert.match(JSON.stringify(res.json()), new RegExp(says), q);
      }
      const missing = await api('GET', '/api/v1/search');
      assert.equal(missing.statusCode, 400, missing.body);
      assert.deepEqual(
        missing.json().details.map((d: { field: string }) => d.field),
        ['querystring.q'],
      );
      const types = await api('GET', searchUrl('login', '&types=card,cow'));
      assert.equal(types.statusCode, 400, types.body);
      const cursor = await api('GET', searchUrl('login', '&cursor=bm9wZQ'));
      assert.equal(cursor.statusCode, 400, cursor.body);
    });

    it('an administrator in no team, a plain member of another company, finds nothing there and what it administers', async () => {
      // the other company's owner: in no team at all once it leaves its own, and a plain member here
      const left = await other.api('DELETE', `/api/v1/teams/${other.teamId}/members/me`);
      assert.equal(left.statusCode, 200, left.body);
      const own = await titles('login', '&types=card', other.api);
      assert.deepEqual(own, ['Fix login page']);
      const added = await api('POST', `/api/v1/companies/${t.tenant.companyId}/members`, {
        email: 'owner@globex.test',
        fullName: 'Gina Globex',
        role: 'member',
      });
      assert.equal(added.statusCode, 201, added.body);
      assert.deepEqual(await hits('login', `&companyId=${t.tenant.companyId}`, other.api), []);
      assert.deepEqual(await titles('login', '&types=card', other.api), own);
    });
  });
}
