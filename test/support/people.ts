/**
 * Signed-in people in tests: a password for a world's user, a session by the real sign-in route,
 * and a client that calls the API with the session cookie and CSRF token as a browser would.
 */
import assert from 'node:assert/strict';
import type { App } from '../../src/app.ts';
import type { ServiceContext } from '../../src/domain/context.ts';
import { setPassword } from '../../src/domain/people/sign-in.ts';
import { findUserByEmail } from '../../src/storage/repositories/users.ts';

export const TEST_PASSWORD = 'violet tractor umbrella 42';

export interface BrowserSession {
  /** The `Cookie` header value. */
  cookie: string;
  csrfToken: string;
  /** The raw Set-Cookie header of the sign-in. */
  setCookie: string;
}

export async function givePassword(services: ServiceContext, email: string, password = TEST_PASSWORD): Promise<void> {
  const user = await findUserByEmail(services.db, email);
  assert.ok(user, `no user ${email}`);
  await setPassword(services, user.id, password);
}

/** Signs in through POST /api/v1/auth/sign-in and answers the browser's session. */
export async function signInAs(app: App, email: string, password = TEST_PASSWORD, headers: Record<string, string> = {}): Promise<BrowserSession> {
  const res = await app.inject({ method: 'POST', url: '/api/v1/auth/sign-in', headers, payload: { email, password } });
  assert.equal(res.statusCode, 200, res.body);
  const setCookie = String(res.headers['set-cookie']);
  const cookie = setCookie.split(';')[0]!;
  return { cookie, csrfToken: (res.json() as { csrfToken: string }).csrfToken, setCookie };
}

/** The headers a browser's same-origin request sends with a session (the CSRF token on every request: harmless on reads). */
export function sessionHeaders(session: BrowserSession): Record<string, string> {
  return { cookie: session.cookie, 'x-csrf-token': session.csrfToken };
}
