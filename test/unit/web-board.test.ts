/**
 * The board's client logic under node's test runner, beside the browser tests: where a dropped card
 * or list lands, how the store places a card's face, the filters (in the URL and on faces), the
 * conflict's words, and a move refused with 412 (the board put back, the card read again, the
 * person told).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { fakeApi } from '../support/web-page.ts';

// the modules of web/src read browser globals when imported: the support module above sets them first
const { QueryClient, QueryClientProvider } = await import('@tanstack/react-query');
const { createElement } = await import('react');
const { renderToString } = await import('react-dom/server');
const { cardDropIndex, listDropIndex } = await import('../../web/src/board/placing.ts');
const store = await import('../../web/src/board/store.ts');
const { dueState, filterOf, isFiltering, matches, textOn, writeFilter } = await import('../../web/src/board/filters.ts');
const { changesBetween } = await import('../../web/src/card/conflict.ts');
const { applyTimeZone } = await import('../../web/src/i18n/messages.ts');
const { daysFromToday, dayInWords } = await import('../../web/src/ui/relativeTime.ts');

type BoardView = import('../../web/src/board/store.ts').BoardView;
type CardFace = import('../../web/src/api.ts').CardFace;
type Card = import('../../web/src/api.ts').Card;

const BOARD = 'b1';
function face(id: string, list: string, position: number, extra: Partial<CardFace> = {}): CardFace {
  return {
    _id: id,
    name: `Card ${id}`,
    position,
    cover: '',
    startDate: null,
    dueDate: null,
    complete: { status: false },
    archived: { status: false },
    labels: [],
    members: [],
    allChecklistItemsCount: { completed: 0, total: 0 },
    commentsCount: 0,
    attachmentsCount: 0,
    hasDescription: false,
    customFields: [],
    board: BOARD,
    list,
    __v: 1,
    ...extra,
  } as CardFace;
}
/** Lists `a` (cards a1 a2 a3) and `b` (b1). */
function board(): BoardView {
  const list = (id: string, cards: CardFace[]) => ({ _id: id, name: `List ${id}`, position: 0, __v: 1, cards, nextCursor: null });
  return {
    board: { _id: BOARD, name: 'Board' } as BoardView['board'],
    lists: [list('a', [face('a1', 'a', 1024), face('a2', 'a', 2048), face('a3', 'a', 3072)]), list('b', [face('b1', 'b', 1024)])],
  };
}
const names = (view: BoardView) => view.lists.map((list) => `${list._id}: ${list.cards.map((card) => card._id).join(' ')}`);

describe('placing a dropped card or list', () => {
  it('within its list: on a card’s lower half goes after it, counted without the card itself', () => {
    assert.equal(cardDropIndex(board(), 'a1', 'a', { type: 'card', listId: 'a', cardId: 'a3', edge: 'bottom' }), 2);
    assert.equal(cardDropIndex(board(), 'a1', 'a', { type: 'card', listId: 'a', cardId: 'a3', edge: 'top' }), 1);
    assert.equal(cardDropIndex(board(), 'a3', 'a', { type: 'card', listId: 'a', cardId: 'a1', edge: 'top' }), 0);
  });
  it('where it already is (on its own neighbour’s edge) is no move', () => {
    assert.equal(cardDropIndex(board(), 'a2', 'a', { type: 'card', listId: 'a', cardId: 'a1', edge: 'bottom' }), null);
    assert.equal(cardDropIndex(board(), 'a2', 'a', { type: 'card', listId: 'a', cardId: 'a3', edge: 'top' }), null);
    assert.equal(cardDropIndex(board(), 'a3', 'a', { type: 'list', listId: 'a' }), null);
  });
  it('into another list: before or after a card, or at its end', () => {
    assert.equal(cardDropIndex(board(), 'a2', 'a', { type: 'card', listId: 'b', cardId: 'b1', edge: 'top' }), 0);
    assert.equal(cardDropIndex(board(), 'a2', 'a', { type: 'card', listId: 'b', cardId: 'b1', edge: 'bottom' }), 1);
    assert.equal(cardDropIndex(board(), 'a2', 'a', { type: 'list', listId: 'b' }), 1);
    assert.equal(cardDropIndex(board(), 'a1', 'a', { type: 'list', listId: 'a' }), 2);
  });
  it('a list beside another: after it moves past it; beside itself is no move', () => {
    assert.equal(listDropIndex(board(), 'a', { listId: 'b', after: true }), 1);
    assert.equal(listDropIndex(board(), 'b', { listId: 'a', after: false }), 0);
    assert.equal(listDropIndex(board(), 'a', { listId: 'b', after: false }), null);
    assert.equal(listDropIndex(board(), 'a', { listId: 'gone', after: false }), null);
  });
});

describe('the store’s faces', () => {
  it('places a face by its list and position, wherever it was', () => {
    assert.deepEqual(names(store.placeCard(board(), face('a1', 'a', 2500))), ['a: a2 a1 a3', 'b: b1']);
    assert.deepEqual(names(store.placeCard(board(), face('a1', 'b', 9999))), ['a: a2 a3', 'b: b1 a1']);
    assert.deepEqual(names(store.placeCard(board(), face('new', 'b', 10))), ['a: a1 a2 a3', 'b: new b1']);
  });
  it('takes off an archived card, and one moved to another board', () => {
    assert.deepEqual(names(store.placeCard(board(), face('a2', 'a', 2048, { archived: { status: true } }))), ['a: a1 a3', 'b: b1']);
    assert.deepEqual(names(store.placeCard(board(), face('b1', 'b', 1024, { board: 'elsewhere' }))), ['a: a1 a2 a3', 'b: ']);
  });
  it('finds and removes a card; removing an unknown one keeps the same view', () => {
    const view = board();
    assert.equal(store.findCard(view, 'b1')?.list, 'b');
    assert.equal(store.findCard(undefined, 'b1'), undefined);
    assert.equal(store.removeCard(view, 'nope'), view);
    assert.deepEqual(names(store.removeCard(view, 'a2')), ['a: a1 a3', 'b: b1']);
  });
});

describe('the filters', () => {
  const now = Date.parse('2026-06-10T12:00:00Z');
  const hours = (n: number) => new Date(now + n * 3_600_000).toISOString();
  it('live in the URL and come back the same; an unknown due is none', () => {
    const filter = { text: 'login', labels: ['l1', 'l2'], members: ['m1'], due: 'week' as const };
    const params = writeFilter(new URLSearchParams('card=c1'), filter);
    assert.equal(params.toString(), 'card=c1&q=login&labels=l1%2Cl2&members=m1&due=week');
    assert.deepEqual(filterOf(params), filter);
    assert.equal(filterOf(new URLSearchParams('due=someday')).due, '');
    assert.equal(isFiltering(filterOf(new URLSearchParams('card=c1'))), false);
    assert.equal(writeFilter(params, { text: '', labels: [], members: [], due: '' }).toString(), 'card=c1');
  });
  it('show a face when it has the text, one of the labels and members, and a due date of the kind', () => {
    const card = face('x', 'a', 1, { name: 'Fix the Login', labels: ['l1'], members: [{ _id: 'm1' }] as CardFace['members'], dueDate: hours(30) });
    const none = { text: '', labels: [], members: [], due: '' as const };
    assert.equal(matches(card, { ...none, text: 'login' }, now), true);
    assert.equal(matches(card, { ...none, text: 'logout' }, now), false);
    assert.equal(matches(card, { ...none, labels: ['l2', 'l1'] }, now), true);
    assert.equal(matches(card, { ...none, labels: ['l2'] }, now), false);
    assert.equal(matches(card, { ...none, members: ['m2'] }, now), false);
    assert.equal(matches(card, { ...none, due: 'day' }, now), false);
    assert.equal(matches(card, { ...none, due: 'week' }, now), true);
    assert.equal(matches(card, { ...none, due: 'none' }, now), false);
    assert.equal(matches({ ...card, dueDate: hours(-1) }, { ...none, due: 'overdue' }, now), true);
    assert.equal(matches({ ...card, dueDate: hours(-1), complete: { status: true } }, { ...none, due: 'overdue' }, now), false, 'done is not overdue');
  });
  it('colour a due date by its state, and label text by contrast', () => {
    assert.equal(dueState({ dueDate: hours(-1), complete: { status: false } }, now), 'overdue');
    assert.equal(dueState({ dueDate: hours(5), complete: { status: false } }, now), 'soon');
    assert.equal(dueState({ dueDate: hours(-1), complete: { status: true } }, now), 'done');
    assert.equal(dueState({ dueDate: null, complete: { status: false } }, now), null);
    assert.notEqual(textOn('#ffffff'), textOn('#000000'));
  });
});

describe('days in the person’s time zone', () => {
  it('counts calendar days there, not 24-hour spans', () => {
    const now = Date.parse('2026-12-07T22:30:00Z'); // 23:30 in Berlin, 11:30 next morning in Auckland
    const due = '2026-12-07T23:30:00Z'; // 00:30 the next day in Berlin, 12:30 the same day in Auckland
    assert.equal(daysFromToday(due, now, 'Europe/Berlin'), 1);
    assert.equal(daysFromToday(due, now, 'Pacific/Auckland'), 0);
    applyTimeZone('Europe/Berlin');
    assert.equal(dayInWords(due, now, 'en'), 'tomorrow');
    applyTimeZone('Pacific/Auckland');
    assert.equal(dayInWords(due, now, 'en'), 'today');
    applyTimeZone(null);
  });
});

describe('a conflict in words', () => {
  const card = (extra: Partial<Card> = {}) =>
    ({
      _id: 'c1',
      name: 'Launch',
      description: '',
      list: 'a',
      startDate: null,
      dueDate: null,
      complete: { status: false },
      labels: [],
      members: [],
      archived: { status: false },
      customFields: [],
      __v: 1,
      ...extra,
    }) as unknown as Card;
  it('names each field another person changed, with its new value', () => {
    const changes = changesBetween(card(), card({ name: 'Launch day', list: 'b', labels: [{ _id: 'l1', name: 'Bug' }] as Card['labels'], __v: 2 }), {
      lists: new Map([['b', 'Doing']]),
      labels: [],
    });
    assert.deepEqual(
      changes.map((change) => [change.field, change.now]),
      [
        ['name', 'Launch day'],
        ['list', 'Doing'],
        ['labels', 'Bug'],
      ],
    );
  });
  it('says something else changed when no field it shows did', () => {
    assert.deepEqual(
      changesBetween(card(), card({ __v: 2 }), { lists: new Map(), labels: [] }).map((change) => change.field),
      ['other'],
    );
  });
});

describe('a move refused because the card changed meanwhile (412)', () => {
  let asked: string[];
  const moved = face('a1', 'b', 5000, { name: 'Moved elsewhere', __v: 7 });
  before(() => {
    asked = fakeApi((method, path) => {
      if (method === 'PATCH' && path === '/api/v1/cards/a1/position')
        return { status: 412, body: { code: 'precondition_failed', message: 'The card changed' } };
      if (method === 'GET' && path === '/api/v1/cards/a1/face') return { status: 200, body: { message: 'ok', card: moved } };
      return { status: 404, body: { code: 'not_found', message: `${method} ${path}` } };
    });
  });

  it('shows the move at once, then puts the board back, reads the card again and says so', async () => {
    const queryClient = new QueryClient();
    queryClient.setQueryData(store.boardKey(BOARD), board());
    const notices: { kind: string; text: string }[] = [];
    const announced: string[] = [];
    let actions: ReturnType<typeof store.useBoardActions> | undefined;
    function Grab() {
      actions = store.useBoardActions(
        BOARD,
        (notice) => notices.push(notice),
        (text) => announced.push(text),
      );
      return null;
    }
    renderToString(createElement(QueryClientProvider, { client: queryClient }, createElement(Grab)));
    assert.ok(actions);

    const move = actions.moveCard('a1', 'a', 2);
    // applied before the server answers
    assert.deepEqual(names(queryClient.getQueryData(store.boardKey(BOARD)) as BoardView), ['a: a2 a3 a1', 'b: b1']);
    assert.deepEqual(announced, ['Card a1 moved to List a, position 3.']);
    await move;

    assert.deepEqual(asked, ['PATCH /api/v1/cards/a1/position', 'GET /api/v1/cards/a1/face']);
    // the board shows the card where the other person put it, not where this move wanted it
    assert.deepEqual(names(queryClient.getQueryData(store.boardKey(BOARD)) as BoardView), ['a: a2 a3', 'b: b1 a1']);
    assert.equal(store.findCard(queryClient.getQueryData(store.boardKey(BOARD)), 'a1')?.name, 'Moved elsewhere');
    assert.deepEqual(notices, [{ kind: 'error', text: 'This card changed meanwhile: the board shows its new state.' }]);
  });
});
