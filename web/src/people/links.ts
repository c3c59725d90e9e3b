import { type QueryClient, useQuery } from '@tanstack/react-query';
import { client, getJson, postJson, session, unwrap } from '../api.ts';
import { forgetOfflineCopies } from '../offline/caches.ts';

/** The token a link carries in its fragment (never sent to a server, never in a Referer). */
export const tokenOfLink = (): string => decodeURIComponent(window.location.hash.slice(1));

/** Drops the token from the address once it has done its job, so it is not left in the history. */
export function forgetToken(path: string): void {
  window.history.replaceState(null, '', path);
}

/** What the sign-in page may offer: single sign-on, and whether mail goes out (for "Forgot password?"). */
export function useSignInProviders(): { singleSignOn: boolean; mail: boolean } | undefined {
  return useQuery({
    queryKey: ['sign-in-providers'],
    queryFn: async () => unwrap(await client.GET('/api/v1/auth/providers')),
    staleTime: Number.POSITIVE_INFINITY,
  }).data;
}

export interface SignedInPerson {
  fullName: string;
  email: string;
}

/** The person this browser is signed in as, or null; without the app's 401 handling (these pages are public). */
export async function currentPerson(): Promise<SignedInPerson | null> {
  const { response, body } = await getJson('/api/v1/auth/session');
  if (!response.ok) return null;
  const user = (body as { user?: SignedInPerson }).user;
  return user ? { fullName: user.fullName, email: user.email } : null;
}

/** Ends this browser's session and forgets what it held, but for the answers of queries named in `keep`. */
export async function signOut(queryClient: QueryClient, keep: readonly string[] = []): Promise<void> {
  await postJson('/api/v1/auth/sign-out', {}).catch(() => undefined);
  session.csrf = null;
  localStorage.removeItem('taskboard.apiKey');
  await forgetOfflineCopies();
  if (keep.length === 0) queryClient.clear();
  else queryClient.removeQueries({ predicate: (query) => !keep.includes(String(query.queryKey[0])) });
}

/** After a sign-in of any kind: the development key goes, and every cached answer is read again. */
export async function afterSignIn(queryClient: QueryClient): Promise<void> {
  localStorage.removeItem('taskboard.apiKey');
  await forgetOfflineCopies();
  await queryClient.invalidateQueries();
}

/** Why a link no longer works, as its 404 says (`details[0].reason`). */
export function goneReason(body: unknown): { reason: string; companyName?: string; inviterName?: string | null } | undefined {
  const detail = (body as { details?: { reason?: unknown; companyName?: unknown; inviterName?: unknown }[] } | undefined)?.details?.[0];
  if (!detail || typeof detail.reason !== 'string') return undefined;
  return {
    reason: detail.reason,
    ...(typeof detail.companyName === 'string' ? { companyName: detail.companyName } : {}),
    ...(typeof detail.inviterName === 'string' || detail.inviterName === null ? { inviterName: detail.inviterName as string | null } : {}),
  };
}

/** The API's refusal of a password (a passkey alone, an invitation accepted with a password) to a member kept to single sign-on. */
export function refusedForSingleSignOn(body: unknown): boolean {
  const details = (body as { details?: { reason?: unknown }[] } | null)?.details;
  return Array.isArray(details) && details.some((detail) => detail?.reason === 'single_sign_on_only');
}
