/**
 * Card relations over HTTP on both engines: every kind, shown on both cards as each sees it, across
 * boards and teams of one company; each a change of both cards with an event on each; a repeat, a
 * card related to itself, another company's card refused; cycles of "blocks" refused, also when two
 * requests close one cycle at once (exactly one wins); deleting a card takes its relations off the
 * other side, archiving one makes it no longer open; and a card out of the reader's reach is never
 * shown nor named.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BoardRelation, CardRelation } from '../../src/schemas/relations.ts';
import { addMember, type MemberFixture } from '../support/fixtures.ts';
import { type Api, apiClient, bearer, buildTwoCompanyApp, ENGINES, type OtherCompany, type TestApp } from '../support/harness.ts';
import { assertSchema } from '../support/schema.ts';
import { describeTiers } from '../support/tiers.ts';

type Relation = { _id: string; kind: string; card: { _id: string; name: string; open: boolean; boardName: string } };

for (const engine of ENGINES) {
  describe(`card relations [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    let other: OtherCompany;
    let alice: MemberFixture;
    let aliceApi: Api;
    let listId: string;
    let otherBoardList: string;
    let secretList: string;
    let boardId: string;

    before(async () => {
      ({ t, api, other } = await buildTwoCompanyApp(engine));
      boardId = (await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Launch' })).json().board._id;
      listId = (await api('POST', '/api/v1/lists', { board: boardId, name: 'Todo' })).json().list._id;
      const second = (await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Ops' })).json().board._id;
      otherBoardList = (await api('POST', '/api/v1/lists', { board: second, name: 'Inbox' })).json().list._id;
      // a team Alice is not in: the owner reaches it, Alice does not
      const team = (await api('POST', `/api/v1/teams?companyId=${t.tenant.companyId}`, { name: 'Board of directors' })).json().team._id;
      const secretBoard = (await api('POST', `/api/v1/boards?teamId=${team}`, { name: 'Mergers' })).json().board._id;
      secretList = (await api('POST', '/api/v1/lists', { board: secretBoard, name: 'Secret' })).json().list._id;
      alice = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'alice@acme.test', fullName: 'Alice' });
      aliceApi = apiClient(t, alice.apiKey);
    });
    after(() => t.dispose());

    const card = async (name: string, list = listId) => (await api('POST', '/api/v1/cards', { list, name })).json().card as { _id: string; __v: number };
    const relate = (from: string, kind: string, to: string, client = api) => client('POST', `/api/v1/cards/${from}/relations`, { kind, card: to });
    const relationsOf = async (cardId: string, client = api) => {
      const res = await client('GET', `/api/v1/cards/${cardId}/relations`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json().relations as Relation[];
    };
    const versionOf = async (cardId: string) => (await api('GET', `/api/v1/cards/${cardId}`)).json().card.__v as number;

    it('relates cards of any board and team, each side shown as its card sees it, a change of both', async () => {
      const a = await card('Write the launch post');
      const b = await card('Ship the release', otherBoardList);
      const c = await card('Merge with Initech', secretList);
      const d = await card('Write the launch post again');
      const before = [await versionOf(a._id), await versionOf(b._id)];

      const created = await relate(a._id, 'blocked_by', b._id);
      assert.equal(created.statusCode, 201, created.body);
      assertSchema(CardRelation, created.json().relation);
      assert.equal(created.json().relation.kind, 'blocked_by');
      assert.equal(created.json().relation.card.name, 'Ship the release');
      assert.equal(created.json().relation.card.boardName, 'Ops');
      assert.equal(created.json().relation.card.open, true);
      assert.deepEqual([await versionOf(a._id), await versionOf(b._id)], [before[0]! + 1, before[1]! + 1]);

      assert.equal((await relate(a._id, 'relates', c._id)).statusCode, 201);
      assert.equal((await relate(d._id, 'duplicates', a._id)).statusCode, 201);

      assert.deepEqual(
        (await relationsOf(a._id)).map((r) => [r.kind, r.card.name]),
        [
          ['blocked_by', 'Ship the release'],
          ['relates', 'Merge with Initech'],
          ['duplicated_by', 'Write the launch post again'],
        ],
      );
      assert.deepEqual(
        (await relationsOf(b._id)).map((r) => [r.kind, r.card.name]),
        [['blocks', 'Write the launch post']],
      );
      assert.deepEqual(
        (await relationsOf(c._id)).map((r) => [r.kind, r.card.name]),
        [['relates', 'Write the launch post']],
      );
      for (const relation of await relationsOf(a._id)) assertSchema(CardRelation, relation);

      // the board's relations: both ends named, as stored
      const board = (await api('GET', `/api/v1/boards/${boardId}/relations`)).json().relations as {
        kind: string;
        from: { name: string };
        to: { name: string };
      }[];
      for (const relation of board) assertSchema(BoardRelation, relation);
      assert.ok(board.some((r) => r.kind === 'blocks' && r.from.name === 'Ship the release' && r.to.name === 'Write the launch post'));

      // each side recorded its change, naming the other card by id only
      const events = await t.services.db
        .selectFrom('events')
        .select(['card_id', 'data'])
        .where('type', '=', 'card.relation.added')
        .where('card_id', 'in', [a._id, b._id])
        .execute();
      const first = events.filter((e) => JSON.parse(e.data).relation === created.json().relation._id);
      assert.deepEqual(
        first.map((e) => [e.card_id, JSON.parse(e.data).kind]).sort(),
        [
          [a._id, 'blocked_by'],
          [b._id, 'blocks'],
        ].sort(),
      );

      // removing it is a change of both, and both stop showing it
      const removed = await api('DELETE', `/api/v1/cards/${b._id}/relations/${created.json().relation._id}`);
      assert.equal(removed.statusCode, 200, removed.body);
      assert.equal(removed.json().relation.kind, 'blocks');
      assert.deepEqual(await relationsOf(b._id), []);
      assert.equal((await relationsOf(a._id)).length, 2);
      assert.equal((await api('DELETE', `/api/v1/cards/${b._id}/relations/${created.json().relation._id}`)).statusCode, 404);
    });

    it('refuses a repeat, a card itself, another company, and a stale If-Match, writing nothing', async () => {
      const a = await card('One');
      const b = await card('Two');
      assert.equal((await relate(a._id, 'relates', b._id)).statusCode, 201);
      // "relates" is one relation whichever card asks
      const again = await relate(b._id, 'relates', a._id);
      assert.equal(again.statusCode, 409, again.body);
      assert.equal((await relate(a._id, 'blocks', a._id)).statusCode, 400);
      const board = (await other.api('POST', `/api/v1/boards?teamId=${other.teamId}`, { name: 'Globex board' })).json().board._id;
      const list = (await other.api('POST', '/api/v1/lists', { board, name: 'L' })).json().list._id;
      const theirs = (await other.api('POST', '/api/v1/cards', { list, name: 'Globex secret' })).json().card._id;
      const foreign = await relate(a._id, 'blocks', theirs);
      assert.equal(foreign.statusCode, 404, foreign.body);
      assert.doesNotMatch(foreign.body, /Globex secret/);
      assert.equal((await relate(theirs, 'blocks', a._id)).statusCode, 404);
      const version = await versionOf(a._id);
      const stale = await t.app.inject({
        method: 'POST',
        url: `/api/v1/cards/${a._id}/relations`,
        headers: { ...bearer(t.tenant.apiKey), 'if-match': `"${version - 1}"` },
        payload: { kind: 'duplicates', card: b._id },
      });
      assert.equal(stale.statusCode, 412, stale.body);
      assert.equal((await relationsOf(a._id)).length, 1);
      assert.equal(await versionOf(a._id), version);
    });

    it('refuses a cycle of blocks, of two cards or more', async () => {
      const [a, b, c] = [await card('A'), await card('B'), await card('C')];
      assert.equal((await relate(a._id, 'blocks', b._id)).statusCode, 201);
      assert.equal((await relate(b._id, 'blocks', c._id)).statusCode, 201);
      const two = await relate(b._id, 'blocks', a._id);
      assert.equal(two.statusCode, 409, two.body);
      assert.equal((await relate(a._id, 'blocked_by', b._id)).statusCode, 409);
      const three = await relate(c._id, 'blocks', a._id);
      assert.equal(three.statusCode, 409, three.body);
      assert.match(three.json().message, /cycle/);
      // other kinds may go any way round
      assert.equal((await relate(c._id, 'relates', a._id)).statusCode, 201);
      assert.equal((await relate(c._id, 'duplicates', a._id)).statusCode, 201);
    });

    it('two requests closing one cycle at once: exactly one wins, every time', async () => {
      // B blocks C and D blocks A exist; the two requests add A blocks B and C blocks D: either closes the cycle A B C D
      // alone, and they lock no card in common, so only the company's graph lock stands between them
      const rounds = await Promise.all(
        Array.from({ length: 6 }, async (_, round) => {
          const [a, b, c, d] = [await card(`A${round}`), await card(`B${round}`), await card(`C${round}`), await card(`D${round}`)];
          assert.equal((await relate(b._id, 'blocks', c._id)).statusCode, 201);
          assert.equal((await relate(d._id, 'blocks', a._id)).statusCode, 201);
          return { a, b, c, d };
        }),
      );
      const answers = await Promise.all(rounds.flatMap(({ a, b, c, d }) => [relate(a._id, 'blocks', b._id), relate(c._id, 'blocks', d._id)]));
      for (let round = 0; round < rounds.length; round++) {
        const pair = [answers[2 * round]!.statusCode, answers[2 * round + 1]!.statusCode].sort();
        assert.deepEqual(pair, [201, 409], `round ${round}: ${answers[2 * round]!.body} / ${answers[2 * round + 1]!.body}`);
      }
    });

    it('deleting a card takes its relations off the other card; archiving a blocker leaves it no longer open', async () => {
      const blocker = await card('Blocker', otherBoardList);
      const blocked = await card('Blocked');
      const gone = await card('Gone');
      assert.equal((await relate(blocker._id, 'blocks', blocked._id)).statusCode, 201);
      assert.equal((await relate(gone._id, 'relates', blocked._id)).statusCode, 201);
      const version = await versionOf(blocked._id);
      assert.equal((await api('DELETE', `/api/v1/cards/${gone._id}`)).statusCode, 200);
      assert.deepEqual(
        (await relationsOf(blocked._id)).map((r) => r.card.name),
        ['Blocker'],
      );
      assert.equal(await versionOf(blocked._id), version + 1);
      const removed = await t.services.db
        .selectFrom('events')
        .select('data')
        .where('type', '=', 'card.relation.removed')
        .where('card_id', '=', blocked._id)
        .execute();
      assert.equal(removed.length, 1);

      // several deleted together: the card left keeps the truth, the deleted ones record nothing more
      const [one, two] = [await card('One of a pair'), await card('Two of a pair')];
      assert.equal((await relate(one._id, 'relates', two._id)).statusCode, 201);
      assert.equal((await relate(one._id, 'duplicates', blocked._id)).statusCode, 201);
      const scope = { companyId: t.tenant.companyId, teamId: t.tenant.teamId };
      const both = await api('PATCH', '/api/v1/cards/delete-multi-team', {
        cards: [
          { cardId: one._id, ...scope },
          { cardId: two._id, ...scope },
        ],
      });
      assert.equal(both.statusCode, 200, both.body);
      assert.deepEqual(
        (await relationsOf(blocked._id)).map((r) => r.card.name),
        ['Blocker'],
      );
      assert.equal(await versionOf(blocked._id), version + 3, 'the relation added, then taken away');
      assert.equal((await relationsOf(blocked._id))[0]?.card.open, true);
      assert.equal((await api('PATCH', `/api/v1/cards/${blocker._id}/archive`, {})).statusCode, 200);
      const after = await relationsOf(blocked._id);
      assert.equal(after[0]?.card.open, false);
      assert.equal(after[0]?.kind, 'blocked_by');
    });

    it("never shows nor names a card out of the reader's reach", async () => {
      const mine = await card('Public roadmap');
      const secret = await card('Acquire Initech quietly', secretList);
      assert.equal((await relate(secret._id, 'blocks', mine._id)).statusCode, 201);
      // the owner sees it; Alice, outside the secret card's team, sees nothing of it anywhere
      assert.equal((await relationsOf(mine._id)).length, 1);
      const reads = [
        await aliceApi('GET', `/api/v1/cards/${mine._id}/relations`),
        await aliceApi('GET', `/api/v1/boards/${boardId}/relations`),
        await aliceApi('GET', `/api/v1/cards/${mine._id}`),
        await aliceApi('GET', `/api/v1/cards/${mine._id}/activity`),
        await aliceApi('GET', `/api/v1/boards/${boardId}/card-faces`),
      ];
      for (const read of reads) {
        assert.equal(read.statusCode, 200, read.body);
        assert.doesNotMatch(read.body, /Acquire Initech/);
      }
      assert.deepEqual(reads[0]!.json().relations, []);
      assert.equal(
        reads[1]!.json().relations.some((r: { from: { _id: string } }) => r.from._id === secret._id),
        false,
      );
      // nor through a write: relating to it, or removing the relation, is the 404 of a card she does not reach
      const relation = (await relationsOf(mine._id))[0]!;
      for (const res of [
        await relate(mine._id, 'relates', secret._id, aliceApi),
        await aliceApi('DELETE', `/api/v1/cards/${mine._id}/relations/${relation._id}`),
        await aliceApi('GET', `/api/v1/cards/${secret._id}/relations`),
      ]) {
        assert.equal(res.statusCode, 404, res.body);
        assert.doesNotMatch(res.body, /Acquire Initech/);
      }
      assert.equal((await relationsOf(mine._id)).length, 1);
    });
  });
}

describeTiers('the card relation routes', {
  engines: ['sqlite'],
  given: async (t, api) => {
    const board = (await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Tiers' })).json().board._id as string;
    const list = (await api('POST', '/api/v1/lists', { board, name: 'L' })).json().list._id as string;
    const a = (await api('POST', '/api/v1/cards', { list, name: 'A' })).json().card._id as string;
    const b = (await api('POST', '/api/v1/cards', { list, name: 'B' })).json().card._id as string;
    return { board, a, b };
  },
  calls: async (api, { board, a, b }) => {
    const relation = (await api('POST', `/api/v1/cards/${a}/relations`, { kind: 'blocks', card: b })).json().relation._id;
    await api('GET', `/api/v1/cards/${a}/relations`);
    await api('GET', `/api/v1/boards/${board}/relations`);
    await api('DELETE', `/api/v1/cards/${a}/relations/${relation}`);
  },
  expected: [
    ['POST /api/v1/cards/:cardId/relations', 'medium'],
    ['GET /api/v1/cards/:cardId/relations', 'very-low'],
    ['GET /api/v1/boards/:boardId/relations', 'very-low'],
    ['DELETE /api/v1/cards/:cardId/relations/:relationId', 'low'],
  ],
});
