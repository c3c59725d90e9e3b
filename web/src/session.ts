import { useQuery } from '@tanstack/react-query';
import { client, getJson, session, unwrap } from './api.ts';

const LAST_BOARD = 'taskboard.lastBoard';
/** The board `/` reopens: the last one opened in this browser. */
export const lastBoard = () => localStorage.getItem(LAST_BOARD);
export const rememberBoard = (boardId: string) => {
  localStorage.setItem(LAST_BOARD, boardId);
  // the left rail's recent boards: the last five opened in this browser, newest first
  const recent = JSON.stringify([boardId, ...recentBoards().filter((id) => id !== boardId)].slice(0, 5));
  if (recent === localStorage.getItem(RECENT_BOARDS)) return;
  localStorage.setItem(RECENT_BOARDS, recent);
  window.dispatchEvent(new Event(RECENT_BOARDS));
};
/** Calls `listener` when the recent boards change in this page. */
export const onRecentBoards = (listener: () => void) => {
  window.addEventListener(RECENT_BOARDS, listener);
  return () => window.removeEventListener(RECENT_BOARDS, listener);
};
const RECENT_BOARDS = 'taskboard.recentBoards';
export const recentBoards = (): string[] => {
  try {
    const ids: unknown = JSON.parse(localStorage.getItem(RECENT_BOARDS) ?? '[]');
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
};
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
