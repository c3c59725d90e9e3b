import { type QueryClient, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useMemo, useRef } from 'react';
import { ApiError, type Board, type Card, type CardFace, client, ifMatch, unwrap } from '../api.ts';
import { t } from '../strings.ts';
import type { DatesWindowAsk } from './views/window.ts';

export interface ListView {
  _id: string;
  name: string;
  position: number;
  __v: number;
  cards: CardFace[];
  nextCursor: string | null;
}
export interface BoardView {
  board: Board;
  lists: ListView[];
  /** Only a dates window's cards are known yet (docs/decisions/0295): the whole board is read next. */
  partial?: boolean;
}

export const boardKey = (boardId: string) => ['board', boardId] as const;
export const cardKey = (cardId: string) => ['card', cardId] as const;

type BoardFaces = { lists: (Omit<ListView, 'cards'> & { cards: CardFace[] })[] } & Record<string, unknown>;
function toView(board: BoardFaces, partial = false): BoardView {
  const { lists, ...rest } = board;
  return {
    board: rest as unknown as Board,
    lists: lists.map((list) => ({ ...list, cards: list.cards, nextCursor: list.nextCursor })),
    ...(partial ? { partial } : {}),
  };
}

/**
 * The board with its lists and the faces of their cards; the lists' further pages are read after the
 * first paint. Opened on a calendar or timeline (`window`), the first read is only the cards of its
 * dates window, and the whole board is read right after, keeping what the window showed.
 */
export function useBoard(boardId: string, window?: DatesWindowAsk) {
  // the window of the first read only: a later one does not make the board another query
  const asked = useRef(window);
  asked.current = window;
  return useQuery(boardQuery(useQueryClient(), boardId, asked));
}

/**
 * The board's read, for `useBoard` and for a page opened at a board's address, which starts it as the
 * app starts, beside the board page's code (docs/decisions/0278). `asked`: the dates window to read first.
 */
export function boardQuery(queryClient: QueryClient, boardId: string, asked: { readonly current: DatesWindowAsk | undefined } = { current: undefined }) {
  return {
    queryKey: boardKey(boardId),
    queryFn: async ({ signal }: { signal: AbortSignal }): Promise<BoardView> => {
      const known = queryClient.getQueryData<BoardView>(boardKey(boardId));
      const ask = asked.current;
      // offline, the window is not among the kept answers (../offline/policy.ts) but the whole board may be
      const windowed = ask && !known ? await readWindow(boardId, ask, signal).catch(() => undefined) : undefined;
      if (ask && windowed) {
        void loadRest(
          queryClient,
          boardId,
          windowed.lists.filter((list) => list.nextCursor),
          ask,
        );
        // the whole board next, once this answer is the query's data
        setTimeout(() => void queryClient.invalidateQueries({ queryKey: boardKey(boardId) }), 0);
        return windowed;
      }
      const { board } = unwrap(await client.GET('/api/v1/boards/{boardId}/card-faces', { params: { path: { boardId } }, signal }));
      const view = toView(board as BoardFaces);
      void loadRest(
        queryClient,
        boardId,
        view.lists.filter((list) => list.nextCursor),
      );
      return known?.partial ? keepWindow(known, view) : view;
    },
  };
}

/** The board with only the cards of a dates window in its lists (Get Board Card Faces by Dates). */
async function readWindow(boardId: string, ask: DatesWindowAsk, signal?: AbortSignal): Promise<BoardView> {
  const { board } = unwrap(
    await client.GET('/api/v1/boards/{boardId}/card-faces/by-dates', { params: { path: { boardId }, query: { ...ask, limit: 200 } }, signal }),
  );
  return toView(board as BoardFaces, true);
}

/**
 * Another window's cards while the whole board is still being read (a calendar moved to the next
 * month): added to what is known, so the view shows them without waiting for the rest.
 */
export async function fillWindow(queryClient: QueryClient, boardId: string, ask: DatesWindowAsk) {
  if (!queryClient.getQueryData<BoardView>(boardKey(boardId))?.partial) return;
  const found = await readWindow(boardId, ask);
  queryClient.setQueryData<BoardView>(boardKey(boardId), (view) => {
    if (!view?.partial) return view;
    const byList = new Map(found.lists.map((list) => [list._id, list.cards]));
    return { ...view, lists: view.lists.map((list) => ({ ...list, cards: mergeCards(list.cards, byList.get(list._id) ?? []) })) };
  });
}

/**
 * The whole board's first pages, keeping the window's cards the pages have not reached yet (they
 * come again with the further pages), so a calendar shown from the window loses none meanwhile.
 */
function keepWindow(known: BoardView, whole: BoardView): BoardView {
  const before = new Map(known.lists.map((list) => [list._id, list.cards]));
  return {
    ...whole,
    lists: whole.lists.map((list) => {
      const last = list.cards.at(-1);
      if (!list.nextCursor || !last) return list;
      const later = (before.get(list._id) ?? []).filter((card) => card.position > last.position || (card.position === last.position && card._id > last._id));
      return { ...list, cards: mergeCards(list.cards, later) };
    }),
  };
}

/** The cards of a list with `more` added (those not there already), in the server's order: position, then id. */
function mergeCards(cards: CardFace[], more: readonly CardFace[]): CardFace[] {
  const known = new Set(cards.map((card) => card._id));
  const added = more.filter((card) => !known.has(card._id));
  if (added.length === 0) return cards;
  return [...cards, ...added].sort((a, b) => a.position - b.position || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
}

/** Lists whose further pages are read at once: the rest wait, so a big board does not flood the server. */
const PAGES_AT_ONCE = 3;

/** Reads the remaining pages of `lists` (of a window's cards, given one), a few lists at a time, adding each page to the cached list. */
async function loadRest(queryClient: QueryClient, boardId: string, lists: readonly ListView[], ask?: DatesWindowAsk) {
  const queue = [...lists];
  const next = async (): Promise<void> => {
    const list = queue.shift();
    if (!list) return;
    await loadList(queryClient, boardId, list._id, list.nextCursor, ask).catch(() => undefined);
    return next();
  };
  await Promise.all(Array.from({ length: PAGES_AT_ONCE }, next));
}

async function loadList(queryClient: QueryClient, boardId: string, listId: string, cursor: string | null, ask?: DatesWindowAsk) {
  while (cursor) {
    const page = unwrap(await client.GET('/api/v1/lists/{listId}/card-faces', { params: { path: { listId }, query: { cursor, limit: 200, ...ask } } }));
    cursor = page.nextCursor;
    queryClient.setQueryData<BoardView>(boardKey(boardId), (view) => {
      if (!view) return view;
      // a window's page (the whole board may have come meanwhile) only adds cards
      return mapList(view, listId, (list) => ({ ...list, cards: mergeCards(list.cards, page.cards), nextCursor: ask ? list.nextCursor : page.nextCursor }));
    });
  }
}

/** The face of a whole card (a write's answer): what Get Card Face answers for it. */
export function faceOf(card: Card): CardFace {
  return {
    _id: card._id,
    name: card.name,
    position: card.position,
    cover: card.cover,
    startDate: card.startDate,
    dueDate: card.dueDate,
    complete: { status: card.complete.status },
    archived: { status: card.archived.status },
    isTemplate: card.isTemplate,
    labels: card.labels.map((label) => label._id),
    members: card.members,
    allChecklistItemsCount: card.allChecklistItemsCount,
    commentsCount: card.comments.length,
    attachmentsCount: card.attachments.length,
    hasDescription: card.description !== '',
    customFields: card.customFields,
    board: card.board,
    list: card.list,
    __v: card.__v,
  };
}

export function mapList(view: BoardView, listId: string, change: (list: ListView) => ListView): BoardView {
  return { ...view, lists: view.lists.map((list) => (list._id === listId ? change(list) : list)) };
}

/** The card put where its face says (list and position), wherever it was before. */
export function placeCard(view: BoardView, card: CardFace): BoardView {
  const without = removeCard(view, card._id);
  if (card.archived.status || card.board !== view.board._id) return without;
  return mapList(without, card.list, (list) => {
    const cards = [...list.cards];
    let index = cards.findIndex((other) => other.position > card.position);
    if (index < 0) index = cards.length;
    cards.splice(index, 0, card);
    return { ...list, cards };
  });
}

export function removeCard(view: BoardView, cardId: string): BoardView {
  if (!view.lists.some((list) => list.cards.some((card) => card._id === cardId))) return view;
  return {
    ...view,
    lists: view.lists.map((list) =>
      list.cards.some((card) => card._id === cardId) ? { ...list, cards: list.cards.filter((card) => card._id !== cardId) } : list,
    ),
  };
}

export function findCard(view: BoardView | undefined, cardId: string): CardFace | undefined {
  for (const list of view?.lists ?? []) {
    const card = list.cards.find((one) => one._id === cardId);
    if (card) return card;
  }
  return undefined;
}

/** What a refused write tells the person, in words. */
export function refusalOf(error: unknown): { conflict: boolean; message: string } {
  if (error instanceof ApiError) return { conflict: error.status === 412, message: error.message };
  return { conflict: false, message: error instanceof Error ? error.message : String(error) };
}

export interface Notice {
  kind: 'error' | 'info';
  text: string;
  /** What the person can do about it, as a button beside the text. */
  action?: { label: string; run: () => void };
}

/**
 * The board's writes: each applied to the page at once, then sent; a refusal puts the page back and
 * says why, a 412 (the card changed meanwhile) shows the card's new state.
 */
export function useBoardActions(boardId: string, notify: (notice: Notice) => void, announce: (text: string) => void) {
  const queryClient = useQueryClient();
  // One key per board, so the callbacks below change only when the board does.
  const key = useMemo(() => boardKey(boardId), [boardId]);
  const get = useCallback(() => queryClient.getQueryData<BoardView>(key), [queryClient, key]);
  const set = useCallback(
    (change: (view: BoardView) => BoardView) => queryClient.setQueryData<BoardView>(key, (view) => (view ? change(view) : view)),
    [queryClient, key],
  );

  /** Each card's write being sent, which the next write of the card waits for. */
  const writing = useRef(new Map<string, Promise<unknown>>());

  /** A write's answer (the whole card): the dialog's copy, and its face on the board. */
  const applyCard = useCallback(
    (card: Card) => {
      set((view) => placeCard(view, faceOf(card)));
      queryClient.setQueryData(cardKey(card._id), card);
    },
    [set, queryClient],
  );

  /**
   * Sends a write of a card after the writes of that card before it, each on the revision the one
   * before left (`send` is given it): quick moves by keyboard are several writes, not a 412 of the
   * second. An answer is applied when no later write of the card waits; else only its revision is
   * taken, so the page keeps showing what the later write will make.
   */
  const inTurn = useCallback(
    (cardId: string, version: number, send: (version: number) => Promise<{ card: unknown }>): Promise<Card> => {
      const earlier = writing.current.get(cardId);
      let mine: Promise<unknown> | undefined;
      const sending = (async () => {
        await earlier;
        const card = (await send(findCard(get(), cardId)?.__v ?? version)).card as Card;
        if (writing.current.get(cardId) === mine) applyCard(card);
        else
          set((view) => {
            const shown = findCard(view, cardId);
            return shown ? placeCard(view, { ...shown, __v: card.__v }) : view;
          });
        return card;
      })();
      const settled = sending.catch(() => undefined);
      mine = settled;
      writing.current.set(cardId, settled);
      void settled.then(() => writing.current.get(cardId) === settled && writing.current.delete(cardId));
      return sending;
    },
    [get, set, applyCard],
  );

  /** Re-reads the card's face (another person's change, a refused write): the board shows it as it is now. */
  const refreshCard = useCallback(
    async (cardId: string) => {
      const result = await client.GET('/api/v1/cards/{cardId}/face', { params: { path: { cardId } } });
      if (result.response.status === 404) {
        set((view) => removeCard(view, cardId));
        return undefined;
      }
      const face = unwrap(result).card;
      set((view) => placeCard(view, face));
      // the dialog, if open on this card, reads the whole card again
      const known = queryClient.getQueryData<Card>(cardKey(cardId));
      if (known && known.__v !== face.__v) void queryClient.invalidateQueries({ queryKey: cardKey(cardId) });
      return face;
    },
    [set, queryClient],
  );

  const refused = useCallback(
    async (error: unknown, snapshot: BoardView | undefined, cardId?: string) => {
      if (snapshot) queryClient.setQueryData(key, snapshot);
      const { conflict, message } = refusalOf(error);
      if (conflict && cardId) {
        await refreshCard(cardId).catch(() => undefined);
        notify({ kind: 'error', text: t.changedMeanwhileBoard });
      } else notify({ kind: 'error', text: t.refused(message) });
    },
    [queryClient, refreshCard, notify, key],
  );

  /** Brings an archived card back where it was (Undo of an archive). */
  const restoreCard = useCallback(
    async (cardId: string) => {
      try {
        applyCard(unwrap(await client.PATCH('/api/v1/cards/{cardId}/unarchive', { params: { path: { cardId } } })).card as Card);
      } catch (error) {
        await refused(error, undefined, cardId);
      }
    },
    [applyCard, refused],
  );

  /** Brings an archived list back with its cards, where it was: the board is read again. */
  const restoreList = useCallback(
    async (listId: string) => {
      try {
        unwrap(await client.PATCH('/api/v1/lists/{listId}/unarchive', { params: { path: { listId } } }));
        notify({ kind: 'info', text: t.listRestored });
        await queryClient.invalidateQueries({ queryKey: key });
      } catch (error) {
        await refused(error, undefined);
      }
    },
    [queryClient, key, notify, refused],
  );

  return useMemo(() => {
    const actions = {
      applyCard,
      refreshCard,
      /** Moves a card; unless `undoable` is false (an undo itself), a toast offers to put it back. */
      async moveCard(cardId: string, toListId: string, index: number, undoable = true) {
        const snapshot = get();
        const card = findCard(snapshot, cardId);
        if (!snapshot || !card) return;
        const target = snapshot.lists.find((list) => list._id === toListId);
        if (!target) return;
        const fromIndex = snapshot.lists.find((list) => list._id === card.list)?.cards.findIndex((one) => one._id === cardId) ?? 0;
        set((view) => {
          const removed = removeCard(view, cardId);
          return mapList(removed, toListId, (list) => {
            const cards = [...list.cards];
            cards.splice(Math.min(index, cards.length), 0, { ...card, list: toListId });
            return { ...list, cards };
          });
        });
        announce(t.moved(card.name, target.name, index + 1));
        try {
          await inTurn(cardId, card.__v, async (version) =>
            unwrap(
              await client.PATCH('/api/v1/cards/{cardId}/position', {
                params: { path: { cardId }, header: ifMatch(version) as never },
                body: { position: index, ...(toListId !== card.list ? { list: toListId } : {}) },
              }),
            ),
          );
          if (undoable)
            notify({
              kind: 'info',
              text: t.movedCard(card.name, target.name),
              action: { label: t.undo, run: () => void actions.moveCard(cardId, card.list, fromIndex, false) },
            });
        } catch (error) {
          await refused(error, snapshot, cardId);
        }
      },
      /**
       * New dates for a card (the calendar's and timeline's drops), shown at once and sent with
       * `If-Match`; `words.done` is what the toast and the screen reader say, with an Undo (which says
       * `words.undone`) unless `undoable` is false.
       */
      async rescheduleCard(
        cardId: string,
        dates: { startDate?: string | null; dueDate?: string | null },
        words: { done: string; undone: string },
        undoable = true,
      ) {
        const snapshot = get();
        const card = findCard(snapshot, cardId);
        if (!snapshot || !card || (dates.startDate === undefined && dates.dueDate === undefined)) return;
        const before = {
          ...(dates.startDate !== undefined ? { startDate: card.startDate } : {}),
          ...(dates.dueDate !== undefined ? { dueDate: card.dueDate } : {}),
        };
        set((view) => placeCard(view, { ...card, ...dates }));
        announce(words.done);
        try {
          await inTurn(cardId, card.__v, async (version) =>
            unwrap(await client.PATCH('/api/v1/cards/{cardId}', { params: { path: { cardId }, header: ifMatch(version) as never }, body: dates })),
          );
          if (undoable)
            notify({
              kind: 'info',
              text: words.done,
              action: { label: t.undo, run: () => void actions.rescheduleCard(cardId, before, { done: words.undone, undone: '' }, false) },
            });
        } catch (error) {
          await refused(error, snapshot, cardId);
        }
      },
      async moveList(listId: string, index: number) {
        const snapshot = get();
        const list = snapshot?.lists.find((one) => one._id === listId);
        if (!snapshot || !list) return;
        set((view) => {
          const lists = view.lists.filter((one) => one._id !== listId);
          lists.splice(Math.min(index, lists.length), 0, list);
          return { ...view, lists };
        });
        announce(t.listMoved(list.name, index + 1));
        try {
          const answer = unwrap(
            await client.PATCH('/api/v1/lists/{listId}', { params: { path: { listId }, header: ifMatch(list.__v) as never }, body: { position: index } }),
          );
          set((view) => ({
            ...view,
            lists: view.lists.map((one) => (one._id === listId ? { ...one, ...answer.list, cards: one.cards, nextCursor: one.nextCursor } : one)),
          }));
        } catch (error) {
          await refused(error, snapshot);
        }
      },
      async createCard(listId: string, name: string) {
        try {
          const answer = unwrap(await client.POST('/api/v1/cards', { body: { list: listId, name, position: 'bottom' } }));
          applyCard(answer.card as Card);
        } catch (error) {
          await refused(error, undefined);
        }
      },
      /** A card made from a template of the board (Copy Card: the copy keeps its parts and is no template), at the list's bottom. */
      async createFromTemplate(templateId: string, listId: string, name?: string) {
        try {
          const answer = unwrap(
            await client.POST('/api/v1/cards/{cardId}/copy', {
              params: { path: { cardId: templateId } },
              body: { list: listId, position: 'bottom', ...(name ? { name } : {}) },
            }),
          );
          applyCard(answer.card as Card);
        } catch (error) {
          await refused(error, undefined);
        }
      },
      async createList(name: string) {
        try {
          const answer = unwrap(await client.POST('/api/v1/lists', { body: { board: boardId, name, position: 'bottom' } }));
          set((view) =>
            view.lists.some((list) => list._id === answer.list._id)
              ? view
              : { ...view, lists: [...view.lists, { ...answer.list, cards: [], nextCursor: null }] },
          );
        } catch (error) {
          await refused(error, undefined);
        }
      },
      async renameList(listId: string, name: string) {
        const snapshot = get();
        const list = snapshot?.lists.find((one) => one._id === listId);
        if (!list) return;
        set((view) => mapList(view, listId, (one) => ({ ...one, name })));
        try {
          const answer = unwrap(
            await client.PATCH('/api/v1/lists/{listId}', { params: { path: { listId }, header: ifMatch(list.__v) as never }, body: { name } }),
          );
          set((view) => mapList(view, listId, (one) => ({ ...one, ...answer.list, cards: one.cards, nextCursor: one.nextCursor })));
        } catch (error) {
          await refused(error, snapshot);
        }
      },
      async archiveList(listId: string) {
        const snapshot = get();
        const list = snapshot?.lists.find((one) => one._id === listId);
        set((view) => ({ ...view, lists: view.lists.filter((one) => one._id !== listId) }));
        try {
          unwrap(await client.PATCH('/api/v1/lists/{listId}/archive', { params: { path: { listId } } }));
          if (list) {
            announce(t.listArchived(list.name));
            notify({ kind: 'info', text: t.listArchived(list.name), action: { label: t.restoreList(list.name), run: () => void restoreList(listId) } });
          }
        } catch (error) {
          await refused(error, snapshot);
        }
      },
      async archiveCard(cardId: string) {
        const snapshot = get();
        const card = findCard(snapshot, cardId);
        set((view) => removeCard(view, cardId));
        try {
          unwrap(
            await client.PATCH('/api/v1/cards/{cardId}/archive', { params: { path: { cardId }, header: (card ? ifMatch(card.__v) : {}) as never }, body: {} }),
          );
          // shown as well as said: the `c` shortcut acts at once, and Undo is its way back
          if (card) notify({ kind: 'info', text: t.cardArchived(card.name), action: { label: t.undo, run: () => void restoreCard(cardId) } });
        } catch (error) {
          await refused(error, snapshot, cardId);
        }
      },
      async toggleMembers(cardId: string, userIds: string[]) {
        const card = findCard(get(), cardId) ?? queryClient.getQueryData<Card>(cardKey(cardId));
        try {
          const answer = unwrap(
            await client.POST('/v2/cards/{cardId}/members', {
              params: { path: { cardId }, header: (card ? ifMatch(card.__v) : {}) as never },
              body: { members: userIds } as never,
            }),
          );
          applyCard(answer.card as Card);
        } catch (error) {
          await refused(error, undefined, cardId);
        }
      },
      async toggleLabels(cardId: string, labelIds: string[]) {
        const card = findCard(get(), cardId) ?? queryClient.getQueryData<Card>(cardKey(cardId));
        try {
          const answer = unwrap(
            await client.POST('/v2/cards/{cardId}/labels', {
              params: { path: { cardId }, header: (card ? ifMatch(card.__v) : {}) as never },
              body: { labels: labelIds },
            }),
          );
          applyCard(answer.card as Card);
        } catch (error) {
          await refused(error, undefined, cardId);
        }
      },
    };
    return actions;
  }, [applyCard, refreshCard, refused, get, set, boardId, announce, notify, restoreList, restoreCard, queryClient, inTurn]);
}

export type BoardActions = ReturnType<typeof useBoardActions>;
