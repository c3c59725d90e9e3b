import { useQuery } from '@tanstack/react-query';
import { client, getJson, session, unwrap } from './api.ts';

const LAST_BOARD = 'taskboard.lastBoard';
/** The board `/` reopens: the last one opened in this browser. */
export const lastBoard = () => localStorage.getItem(LAST_BOARD);
export const rememberBoard = (boardId: string) => localStorage.setItem(LAST_BOARD, boardId);
/** A deleted board is not reopened by `/`. */
export const forgetBoard = (boardId: string) => {
  if (localStorage.getItem(LAST_BOARD) === boardId) localStorage.removeItem(LAST_BOARD);
};

/** The person signed in (Get Me): their companies, teams and roles; read once a minute at most. */
export function useMe() {
  return useQuery({
    queryKey: ['me'],
    queryFn: async () => {
      // After a reload the page holds no CSRF token: the session hands it out again.
      if (!session.apiKey && !session.csrf) await getJson('/api/v1/auth/session').catch(() => undefined);
      return unwrap(await client.GET('/api/v1/me'));
    },
    staleTime: 60_000,
  });
}
