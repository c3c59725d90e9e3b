import { infiniteQueryOptions, type QueryClient, queryOptions, useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '@taskboard/client';
import { useEffect } from 'react';
import { type BoardEvent, type Card, client, type Member, unwrap } from '../api.ts';
import { cardEvents } from '../board/live.ts';
import { type BoardActions, cardKey } from '../board/store.ts';

export type Checklist = components['schemas']['Checklist'];
export type ChecklistItem = components['schemas']['ChecklistItem'];
export type Comment = components['schemas']['Comment'];
export type Discussion = components['schemas']['Discussion'];
export type Attachment = components['schemas']['Attachment'];
export type Cheer = components['schemas']['Cheer'];

/** The dialog's reads hang under the card's key, so one invalidation of the card reaches them all. */
export const checklistsKey = (cardId: string) => [...cardKey(cardId), 'checklists'] as const;
export const commentsKey = (cardId: string) => [...cardKey(cardId), 'comments'] as const;
export const activityKey = (cardId: string) => [...cardKey(cardId), 'activity'] as const;

/** Comments and activity come a page at a time; the dialog shows the newest first. */
export const COMMENT_PAGE = 20;
export const ACTIVITY_PAGE = 20;

/**
 * The whole card, read when its dialog opens (Get Card Details marks it seen). Read again on an
 * open a little later; the few seconds cover the read started by the click before the dialog mounts.
 */
export const cardQuery = (cardId: string) =>
  queryOptions({
    queryKey: cardKey(cardId),
    queryFn: async ({ signal }) => unwrap(await client.GET('/api/v1/cards/{cardId}', { params: { path: { cardId } }, signal })).card as Card,
    staleTime: 2_000,
  });

export const checklistsQuery = (cardId: string) =>
  queryOptions({
    queryKey: checklistsKey(cardId),
    queryFn: async ({ signal }) => {
      const all: Checklist[] = [];
      let cursor: string | undefined;
      // A card's checklists are few (each carries its items): read every page.
      do {
        const page = unwrap(
          await client.GET('/api/v1/cards/{cardId}/checklists', { params: { path: { cardId }, query: { limit: 200, ...(cursor ? { cursor } : {}) } }, signal }),
        );
        all.push(...(page.checklists as Checklist[]));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return all;
    },
  });

export const commentsQuery = (cardId: string) =>
  infiniteQueryOptions({
    queryKey: commentsKey(cardId),
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam, signal }) =>
      unwrap(
        await client.GET('/api/v1/cards/{cardId}/comments', {
          params: { path: { cardId }, query: { order: 'newest', limit: COMMENT_PAGE, ...(pageParam ? { cursor: pageParam } : {}) } },
          signal,
        }),
      ) as { comments: Comment[]; nextCursor: string | null },
    getNextPageParam: (last: { nextCursor: string | null }) => last.nextCursor ?? undefined,
  });

/**
 * The dialog's three reads started together, as the card is clicked: none waits for another, nor
 * for the dialog to render (the checklists and comments used to start only once the card had come).
 */
export function startCardReads(queryClient: QueryClient, cardId: string) {
  void queryClient.prefetchQuery(cardQuery(cardId));
  void queryClient.prefetchQuery(checklistsQuery(cardId));
  void queryClient.prefetchInfiniteQuery(commentsQuery(cardId));
}

export function useChecklists(cardId: string) {
  return useQuery(checklistsQuery(cardId));
}

export function useComments(cardId: string) {
  return useInfiniteQuery(commentsQuery(cardId));
}

export function useActivity(cardId: string, enabled: boolean) {
  return useInfiniteQuery({
    queryKey: activityKey(cardId),
    enabled,
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam, signal }) =>
      unwrap(
        await client.GET('/api/v1/cards/{cardId}/activity', {
          params: { path: { cardId }, query: { limit: ACTIVITY_PAGE, ...(pageParam ? { cursor: pageParam } : {}) } },
          signal,
        }),
      ) as { events: BoardEvent[]; nextCursor: string | null },
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

/** Re-reads what the dialog shows of the card besides the card itself (its face is the board's). */
export function refetchParts(queryClient: QueryClient, cardId: string) {
  return queryClient.invalidateQueries({ queryKey: cardKey(cardId), predicate: (query) => query.queryKey.length > 2 });
}

/**
 * After a write of the dialog: the card (its face on the board: counts, progress, cover) and the
 * dialog's parts. The board's stream would bring them too; reading at once keeps the writer's own
 * view from waiting on it.
 */
export function useRefresh(cardId: string, actions: BoardActions) {
  const queryClient = useQueryClient();
  return async () => {
    await Promise.all([actions.refreshCard(cardId).catch(() => undefined), refetchParts(queryClient, cardId)]);
  };
}

/** Changes made elsewhere to this card (the board's stream): the dialog's parts are read again. */
export function useLiveParts(cardId: string) {
  const queryClient = useQueryClient();
  useEffect(() => {
    const listener = () => void refetchParts(queryClient, cardId);
    cardEvents.addEventListener(cardId, listener);
    return () => cardEvents.removeEventListener(cardId, listener);
  }, [cardId, queryClient]);
}

/** The people of the team by id, for names where a record only carries an id. */
export function peopleById(members: Member[]): Map<string, Member> {
  return new Map(members.map((member) => [member._id, member]));
}

export const nameOf = (people: Map<string, Member>, id: string) => people.get(id)?.fullName ?? '?';

export type { Card };
