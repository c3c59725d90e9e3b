import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { DomainError, type ErrorDetail, UnauthorizedError } from '../domain/shared/errors.ts';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../storage/unavailable.ts';

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
  429: 'rate_limited',
};

interface AjvIssue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
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

export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  code: string,
  message: string,
  details?: ErrorDetail[],
) {
  return reply.status(status).send({ message, code, requestId: String(request.id), ...(details?.length ? { details } : {}) });
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
      if (isDatabaseUnavailable(error)) {
        // The pool reconnects by itself: the client should just come back shortly.
        request.log.warn({ err: error }, 'request failed: the database is unavailable');
        reply.header('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
        return sendError(request, reply, 503, 'unavailable', 'The database is temporarily unavailable, please try again shortly.');
      }
      request.log.error({ err: error }, 'request failed');
      return sendError(request, reply, 500, 'internal', 'Internal server error');
    });

    app.setNotFoundHandler((request, reply) =>
      sendError(request, reply, 404, 'not_found', `Route ${request.method} ${request.url.split('?')[0]} not found`),
    );
  },
  { name: 'errors' },
);
