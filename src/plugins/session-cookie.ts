import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The session cookie (docs/people.md): HttpOnly, SameSite=Lax, Path=/; over HTTPS (directly or
 * through a trusted proxy) also Secure with the `__Host-` prefix, which a browser only accepts
 * from the host itself over HTTPS, so neither a sibling subdomain nor plain HTTP can plant one.
 */
export const SESSION_COOKIE = 'taskboard_session';
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;
/** The header a cookie-authenticated change carries its session's CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';

function secure(request: FastifyRequest): boolean {
  return request.protocol === 'https';
}

/** The value of a cookie of this app named `name` (`__Host-name` over HTTPS: only the one meant for the request's scheme). */
export function hostCookieOf(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  const cookies = parseCookie(header);
  return (secure(request) ? cookies[`__Host-${name}`] : cookies[name]) || undefined;
}

/**
 * Sets a cookie of this app as the session cookie is set: HttpOnly, SameSite=Lax, Path=/, and over
 * HTTPS Secure with the `__Host-` prefix. `lifetime`: when it ends (an empty value and
 * `{ maxAge: 0 }` clear it).
 */
export function setHostCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  name: string,
  value: string,
  lifetime: { expires: Date } | { maxAge: number },
): void {
  const https = secure(request);
  reply.header(
    'set-cookie',
    stringifySetCookie({ name: https ? `__Host-${name}` : name, value, httpOnly: true, sameSite: 'lax', path: '/', secure: https, ...lifetime }),
  );
}

/** The session token the request's cookie carries, if any (only the cookie meant for its scheme). */
export function sessionTokenOf(request: FastifyRequest): string | undefined {
  return hostCookieOf(request, SESSION_COOKIE);
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, expiresAt: string): void {
  setHostCookie(request, reply, SESSION_COOKIE, token, { expires: new Date(expiresAt) });
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  setHostCookie(request, reply, SESSION_COOKIE, '', { expires: new Date(0) });
}

/**
 * Whether a browser request may change state here: its `Origin` (when sent) is this service's own
 * or one CORS_ORIGINS allows, and the browser does not call it cross-site (`Sec-Fetch-Site`).
 */
export function allowedOrigin(request: FastifyRequest): boolean {
  if (request.headers['sec-fetch-site'] === 'cross-site') return allowedByCors(request, request.headers.origin);
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  if (origin === `${request.protocol}://${request.host}`) return true;
  return allowedByCors(request, origin);
}

function allowedByCors(request: FastifyRequest, origin: string | undefined): boolean {
  if (!origin) return false;
  const allowed = request.server.config.cors.origins;
  return allowed !== '*' && allowed.includes(origin);
}
