import { queryOptions, useQuery } from '@tanstack/react-query';
import type { components } from '@taskboard/client';
import { client, unwrap } from '../api.ts';
import { cardKey } from '../board/store.ts';

export type CardRelation = components['schemas']['CardRelation'];
export type BoardRelation = components['schemas']['BoardRelation'];
export type RelationSide = CardRelation['kind'];

export const SIDES: readonly RelationSide[] = ['blocked_by', 'blocks', 'relates', 'duplicates', 'duplicated_by'];

/** A card's relations hang under the card's key: the dialog's refresh and the card's live events reach them. */
export const cardRelationsKey = (cardId: string) => [...cardKey(cardId), 'relations'] as const;
export const boardRelationsKey = (boardId: string) => ['relations', boardId] as const;

export const cardRelationsQuery = (cardId: string) =>
  queryOptions({
    queryKey: cardRelationsKey(cardId),
    queryFn: async ({ signal }) =>
      unwrap(await client.GET('/api/v1/cards/{cardId}/relations', { params: { path: { cardId } }, signal })).relations as CardRelation[],
  });

/** The board's relations: what its card fronts need to say which cards are blocked. */
export function useBoardRelations(boardId: string) {
  return useQuery({
    queryKey: boardRelationsKey(boardId),
    queryFn: async ({ signal }) =>
      unwrap(await client.GET('/api/v1/boards/{boardId}/relations', { params: { path: { boardId } }, signal })).relations as BoardRelation[],
    staleTime: 30_000,
  });
}

export { openBlockers } from './blockers.ts';
