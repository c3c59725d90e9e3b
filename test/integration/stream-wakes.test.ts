/**
 * Which live streams a commit wakes: the event bell's ring in process says what the committed
 * events concern (their boards, with both boards of a card's move, and the users they are
 * addressed to), and so does another instance's announcement; a stream wakes only for a ring that
 * concerns it, or one that says nothing of that (a reconnection). Before, every commit woke every
 * open stream, each of which then read the record.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authenticate } from '../../src/domain/account/service.ts';
import { type LiveStream, openBoardStream, openNotificationStream } from '../../src/domain/events/board-stream.ts';
import { announcement, type Ring } from '../../src/events/bell.ts';
import { addMember } from '../support/fixtures.ts';
import { type Api, apiClient, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';

for (const engine of ENGINES) {
  describe(`which streams a commit wakes [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    const boards: string[] = [];
    const lists: string[] = [];
    const cards: string[] = [];

    before(async () => {
      t = await buildTestApp(engine);
      api = apiClient(t, t.tenant.apiKey);
      for (const name of ['Watched', 'Elsewhere']) {
        const board = (await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name })).json().board._id;
        const list = (await api('POST', '/api/v1/lists', { board, name: 'Todo' })).json().list._id;
        boards.push(board);
        lists.push(list);
        cards.push((await api('POST', '/api/v1/cards', { list, name: 'Card' })).json().card._id);
      }
    });
    after(() => t.dispose());

    /**
     * The stream, started, told by the bell as the route tells it, counting the wakes the bell's rings
     * cause (not its own: on PostgreSQL a stream whose events are held back behind other suites'
     * transactions looks again by itself).
     */
    function watched(stream: LiveStream) {
      let wakes = 0;
      let ringing = false;
      const wake = stream.wake.bind(stream);
      stream.wake = () => {
        if (ringing) wakes++;
        wake();
      };
      stream.start({ send: () => true, end: () => {} });
      const unsubscribe = t.app.eventBell.subscribe((ring) => {
        ringing = true;
        try {
          stream.heard(ring);
        } finally {
          ringing = false;
        }
      });
      return {
        wakes: () => wakes,
        close() {
          unsubscribe();
          stream.end('the test is over');
        },
      };
    }

    /** The rings of the bell while `work` runs. */
    async function ringsDuring(work: () => Promise<unknown>): Promise<Ring[]> {
      const rings: Ring[] = [];
      const unsubscribe = t.app.eventBell.subscribe((ring) => rings.push(ring));
      try {
        await work();
      } finally {
        unsubscribe();
      }
      return rings;
    }

    const rename = async (card: string, name: string) => assert.equal((await api('PATCH', `/api/v1/cards/${card}`, { name })).statusCode, 200);

    it("wakes a board's stream for a commit on its board, not for one on another board", async () => {
      const caller = await authenticate(t.services, t.tenant.apiKey);
      const stream = watched(await openBoardStream(t.services, caller, t.tenant.apiKey, boards[0]!, undefined));
      try {
        const started = stream.wakes();
        await rename(cards[1]!, 'on the other board');
        assert.equal(stream.wakes(), started, 'a commit on another board');
        await rename(cards[0]!, 'on the watched board');
        assert.equal(stream.wakes(), started + 1, 'a commit on its board');
      } finally {
        stream.close();
      }
    });

    it("wakes a stream for another instance's announcement of its board, or one that says nothing of what committed", async () => {
      const caller = await authenticate(t.services, t.tenant.apiKey);
      const stream = watched(await openBoardStream(t.services, caller, t.tenant.apiKey, boards[0]!, undefined));
      try {
        const started = stream.wakes();
        t.app.eventBell.heard(announcement('another instance', { boards: new Set([boards[1]!]), users: new Set() }));
        assert.equal(stream.wakes(), started, 'another board');
        t.app.eventBell.heard(announcement('another instance', { boards: new Set([boards[0]!]), users: new Set() }));
        assert.equal(stream.wakes(), started + 1, 'its board');
        t.app.eventBell.heard('an instance of an older version');
        assert.equal(stream.wakes(), started + 2, 'an announcement that does not say');
        t.app.eventBell.heard();
        assert.equal(stream.wakes(), started + 3, 'a reconnection');
      } finally {
        stream.close();
      }
    });

    it('a move concerns the board the card left and the board it went to', async () => {
      const mover = (await api('POST', '/api/v1/cards', { list: lists[0], name: 'Mover' })).json().card._id;
      const rings = await ringsDuring(async () => {
        const moved = await api('PATCH', '/api/v1/cards/move-multi-team', {
          cards: [{ cardId: mover, companyId: t.tenant.companyId, teamId: t.tenant.teamId }],
          target: { companyId: t.tenant.companyId, teamId: t.tenant.teamId, list: lists[1] },
        });
        assert.equal(moved.statusCode, 200, moved.body);
      });
      assert.equal(rings.length, 1, 'one commit, one ring');
      assert.deepEqual([...(rings[0]?.boards ?? [])].sort(), [...boards].sort());
    });

    it("a notification concerns its user, whose notification stream wakes, and no one else's", async () => {
      const member = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: `member-${engine}@acme.test` });
      const memberCaller = await authenticate(t.services, member.apiKey);
      const ownerCaller = await authenticate(t.services, t.tenant.apiKey);
      const memberStream = watched(await openNotificationStream(t.services, memberCaller, member.apiKey, undefined));
      const ownerStream = watched(await openNotificationStream(t.services, ownerCaller, t.tenant.apiKey, undefined));
      try {
        const [memberFrom, ownerFrom] = [memberStream.wakes(), ownerStream.wakes()];
        const rings = await ringsDuring(async () => {
          const assigned = await api('POST', `/v2/cards/${cards[0]}/members`, { members: [member.userId] });
          assert.equal(assigned.statusCode, 200, assigned.body);
        });
        assert.deepEqual([...(rings[0]?.users ?? [])], [member.userId], 'the assigned member is told');
        assert.equal(memberStream.wakes(), memberFrom + 1);
        assert.equal(ownerStream.wakes(), ownerFrom, 'the owner, who assigned, is not notified');
      } finally {
        memberStream.close();
        ownerStream.close();
      }
    });
  });
}
