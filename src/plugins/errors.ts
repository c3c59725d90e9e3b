import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import fp from 'fastify-plugin';
import { DomainError, type ErrorDetail, UnauthorizedError } from '../domain/shared/errors.ts';
import { FORBIDDEN_IN_TEXT, TEXT_RULE } from '../schemas/common.ts';
import { StoreUnavailable } from '../storage/attachment-store.ts';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../storage/unavailable.ts';
import { methodsOf } from './route-hooks.ts';

const CODE_BY_STATUS: Record<number, string> = {
  400: 'validation_failed',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  408: 'timeout',
  429: 'rate_limited',
  431: 'headers_too_large',
};

interface AjvIssue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
  /** The refused value (ajv's `verbose`). */
  data?: unknown;
}

/** `/labels/2` in body → `body.labels[2]`, the way a client names the field. */
function fieldPath(context: string | undefined, issue: AjvIssue): string {
  const parts = (issue.instancePath ?? '')
    .split('/')
    .filter(Boolean)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (issue.keyword === 'additionalProperties' && typeof issue.params?.additionalProperty === 'string') {
    parts.push(issue.params.additionalProperty);
  }
  if (issue.keyword === 'required' && typeof issue.params?.missingProperty === 'string') {
    parts.push(issue.params.missingProperty);
  }
  let path = context ?? 'body';
  for (const part of parts) path += /^\d+$/.test(part) ? `[${part}]` : `.${part}`;
  return path;
}

function describeIssue(issue: AjvIssue): string {
  if (issue.keyword === 'additionalProperties') return 'unknown field';
  if (issue.keyword === 'required') return 'is required';
  if (issue.keyword === 'pattern' && issue.params?.pattern === '^[0-9a-f]{24}$') {
    return 'must be an id of 24 lowercase hex characters';
  }
  if (issue.keyword === 'pattern' && typeof issue.data === 'string') {
    if (FORBIDDEN_IN_TEXT.test(issue.data)) return TEXT_RULE;
    if (!/\S/.test(issue.data)) return 'must not be blank';
  }
  if (issue.keyword === 'maxLength' && typeof issue.params?.limit === 'number') return `must have at most ${issue.params.limit} characters`;
  return issue.message ?? 'is invalid';
}

function validationDetails(error: FastifyError): ErrorDetail[] {
  const context = (error as FastifyError & { validationContext?: string }).validationContext;
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  for (const issue of (error.validation ?? []) as AjvIssue[]) {
    // anyOf/oneOf branches repeat the same field; keep the first, clearest reason
    const field = fieldPath(context, issue);
    if (issue.keyword === 'anyOf' || seen.has(field)) continue;
    seen.add(field);
    details.push({ field, message: describeIssue(issue) });
  }
  return details;
}

/** The contract's error body. */
export function errorBody(request: FastifyRequest, code: string, message: string, details?: ErrorDetail[]) {
  return { message, code, requestId: String(request.id), ...(details?.length ? { details } : {}) };
}

export function sendError(request: FastifyRequest, reply: FastifyReply, status: number, code: string, message: string, details?: ErrorDetail[]) {
  return reply.status(status).send(errorBody(request, code, message, details));
}

/** Maps every failure to the contract's error body; nothing internal (stack, SQL) reaches a client. */
export default fp(
  async function errorsPlugin(app: FastifyInstance) {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      if (error instanceof DomainError) {
        if (error instanceof UnauthorizedError) {
          reply.header('WWW-Authenticate', error.invalidToken ? 'Bearer error="invalid_token"' : 'Bearer');
        }
        return sendError(request, reply, error.status, error.code, error.message, error.details);
      }
      if (error.validation) {
        const details = validationDetails(error);
        const summary = details.map((d) => `${d.field} ${d.message}`).join('; ');
        return sendError(request, reply, 400, 'validation_failed', `Invalid request: ${summary}`, details);
      }
      const status = error.statusCode ?? 500;
      if (status >= 400 && status < 500) {
        const code = CODE_BY_STATUS[status] ?? 'bad_request';
        let message = error.message;
        if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError) message = `Malformed JSON body: ${error.message}`;
        if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
          const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().slice(0, 100) || 'none';
          message = `Unsupported Content-Type (${type}): send the body as application/json`;
        }
        return sendError(request, reply, status, code, message);
      }
      if (error instanceof StoreUnavailable) {
        // Nothing was recorded: the object is written before its record, and a failed write records nothing.
        request.log.warn({ err: error }, 'request failed: the attachment store is unavailable');
        reply.header('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
        return sendError(request, reply, 503, 'unavailable', 'The attachment store is temporarily unavailable, please try again shortly.');
      }
      if (isDatabaseUnavailable(error)) {
        // The pool reconnects by itself: the client should just come back shortly.
        request.log.warn({ err: error }, 'request failed: the database is unavailable');
        request.server.databaseFaults.requestUnavailable++;
        reply.header('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
        return sendError(request, reply, 503, 'unavailable', 'The database is temporarily unavailable, please try again shortly.');
      }
      request.log.error({ err: error }, 'request failed');
      return sendError(request, reply, 500, 'internal', 'Internal server error');
    });

    const table = new RouteTable();
    app.decorate('knownRoutes', table);
    app.addHook('onRoute', (route) => {
      for (const method of methodsOf(route)) table.add(method, route.url);
    });

    app.setNotFoundHandler((request, reply) => {
      const path = pathOf(request);
      const allowed = [...new Set(table.match(path).map(({ route }) => route.method))];
      if (allowed.length) {
        reply.header('Allow', allowed.join(', '));
        return sendError(
          request,
          reply,
          405,
          'method_not_allowed',
          `Method ${request.method} is not allowed on ${path.slice(0, 200)} (allowed: ${allowed.join(', ')})`,
        );
      }
      return sendError(request, reply, 404, 'not_found', `Route ${request.method} ${path.slice(0, 200)} not found`);
    });
  },
  { name: 'errors' },
);

/** One route as the router holds it: its method and its URL pattern, as a regular expression. */
interface KnownRoute {
  method: string;
  url: string;
  params: string[];
  pattern: RegExp;
}

/**
 * The routes the app serves, to say what the router could not: which methods a known path allows
 * (a 405 with `Allow` instead of a 404), and which path parameter is over the router's length limit.
 * Patterns are matched the way find-my-way does for ours: `:name` is one path segment, `*` the rest.
 */
class RouteTable {
  private readonly routes: KnownRoute[] = [];

  add(method: string, url: string) {
    // The catch-all (CORS preflight: OPTIONS *) would make every path "known".
    if (url === '*' || url === '/*') return;
    const params: string[] = [];
    const source = url
      .split('/')
      .map((segment) => {
        if (segment === '*') return '.*';
        if (segment.startsWith(':')) {
          params.push(segment.slice(1));
          return '([^/]+)';
        }
        return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      })
      .join('/');
    this.routes.push({ method, url, params, pattern: new RegExp(`^${source}/?$`) });
  }

  /** The routes whose pattern matches `path` (any method), with the path's raw parameter values. */
  match(path: string): { route: KnownRoute; values: Record<string, string> }[] {
    const found: { route: KnownRoute; values: Record<string, string> }[] = [];
    for (const route of this.routes) {
      const m = route.pattern.exec(path);
      if (m) found.push({ route, values: Object.fromEntries(route.params.map((name, i) => [name, m[i + 1] ?? ''])) });
    }
    return found;
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The routes served, by method and URL pattern (see RouteTable). */
    knownRoutes: RouteTable;
  }
}

function pathOf(request: FastifyRequest): string {
  return request.url.split('?')[0] ?? '/';
}

/**
 * Fastify's `frameworkErrors`: what the router refuses before any route runs, in the contract's body.
 * A path with bad percent-encoding, or a path parameter over the router's limit, is a malformed
 * request (400 `validation_failed`), never an echo of the URL.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header('X-Request-Id', request.id);
  if (error.code === 'FST_ERR_BAD_URL') {
    return sendError(request, reply, 400, 'validation_failed', 'Malformed URL: the path has invalid percent-encoding', [
      { field: 'path', message: 'has invalid percent-encoding' },
    ]);
  }
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    const table = request.server.knownRoutes as RouteTable | undefined;
    const match = table?.match(pathOf(request)).find(({ route }) => route.method === request.method) ?? table?.match(pathOf(request))[0];
    const longest = match ? Object.entries(match.values).sort((a, b) => b[1].length - a[1].length)[0]?.[0] : undefined;
    const field = longest ? `params.${longest}` : 'params';
    const detail = longest && /Id$/.test(longest) ? 'must be an id of 24 lowercase hex characters' : 'is too long';
    return sendError(request, reply, 400, 'validation_failed', `Invalid request: ${field} ${detail}`, [{ field, message: detail }]);
  }
  request.log.error({ err: error }, 'router failed');
  return sendError(request, reply, 500, 'internal', 'Internal server error');
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses before there is a request (headers
 * or URL over `maxHeaderSize`, a malformed request line, a timeout), in the contract's body.
 */
export const clientErrorHandler: NonNullable<FastifyServerOptions['clientErrorHandler']> = (error, socket: Socket) => {
  if ((error as NodeJS.ErrnoException).code === 'ECONNRESET' || socket.destroyed) return;
  const code = (error as NodeJS.ErrnoException).code;
  const [status, message] =
    code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'The request line and headers are larger than this server accepts']
      : code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request took too long to arrive']
        : [400, 'Malformed HTTP request'];
  const requestId = randomUUID();
  const body = JSON.stringify({ message, code: CODE_BY_STATUS[status], requestId });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
};
