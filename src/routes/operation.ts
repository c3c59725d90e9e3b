import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static, TSchema } from 'typebox';
import type { Tier } from '../config.ts';
import type { Caller } from '../domain/shared/caller.ts';
import { entityTag, type TaggedBody } from '../domain/shared/entity-tags.ts';
import { errorResponses, success } from '../schemas/common.ts';

/**
 * One way to declare a JSON route: a flat declaration (what the OpenAPI document says of it, and its
 * rate-limit tier) and a handler that takes the validated request and answers the record. The route
 * adds the `message` and the error answers, so that each route says only what is its own.
 */

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** The success body besides its `message`: one record under a key, or the fields of a whole body schema. */
type Answer = readonly [key: string, record: TSchema] | TSchema;

type Parsed<S> = S extends TSchema ? Static<S> : undefined;

/** What a handler reads: the caller and the request's parts, as their schemas validated them. */
export interface Input<P, Q, B> {
  caller: Caller;
  params: Parsed<P>;
  query: Parsed<Q>;
  body: Parsed<B>;
  request: FastifyRequest;
  /** For the few routes that set headers of their own (the session cookie). */
  reply: FastifyReply;
  /** The route's serializer of `schema` (one of the schemas its answer is made of), for records the domain answers rendered. */
  serializer<S extends TSchema>(schema: S): (value: Static<S>) => string;
}

/**
 * An answer whose fields besides `message` come written already, as the route's serializer would
 * write them (records stored rendered: the card read model); the body is sent as it is. `tagged`:
 * the same fields with each rendered record written as its tag (`TaggedBody`); the answer's ETag is
 * the hash of that text, which changes whenever the body does, instead of a hash of every record's
 * bytes again (a page of cards is tens of kilobytes to hash on every read).
 */
export class RenderedFields {
  readonly json: string;
  readonly tagged: string;
  /** The revision of the one record the answer is (`TaggedBody.revision`), if it has one. */
  readonly revision: number | undefined;
  constructor(json: string, tagged: string, revision?: number) {
    this.json = json;
    this.tagged = tagged;
    this.revision = revision;
  }
}

/** The fields `"key":<record>` of one rendered record, tagged. */
export function renderedRecord(key: string, record: TaggedBody): RenderedFields {
  return new RenderedFields(`${JSON.stringify(key)}:${record.body}`, `${JSON.stringify(key)}:${record.tag}`, record.revision);
}

/** A page's answer fields: its records under `key`, with its `nextCursor`. */
export function keyedPage<K extends string, T>(key: K, page: { items: T[]; nextCursor: string | null }): Record<K, T[]> & { nextCursor: string | null } {
  return { [key]: page.items, nextCursor: page.nextCursor } as Record<K, T[]> & { nextCursor: string | null };
}

/** A page of rendered records under `key`, with its `nextCursor` (the fields of a page answer, in the schemas' order). */
export function renderedPage(key: string, page: { items: readonly TaggedBody[]; nextCursor: string | null }): RenderedFields {
  const after = `],"nextCursor":${JSON.stringify(page.nextCursor)}`;
  return new RenderedFields(
    `${JSON.stringify(key)}:[${page.items.map((item) => item.body).join(',')}${after}`,
    `${JSON.stringify(key)}:[${page.items.map((item) => item.tag).join(',')}${after}`,
  );
}

/** What a handler answers: the record (keyed answers), or the body without its message. */
type Result<A> = A extends readonly [string, infer S extends TSchema] ? Static<S> : A extends TSchema ? Omit<Static<A>, 'message'> : never;

/**
 * What creates answers 201 with a `Location`: the GET path of the new object, or, for objects that
 * have no GET of their own, the GET of the collection that shows them. Anything else answers 200.
 */
type Status<A extends Answer> =
  | { status: 201; location: (created: Result<A>) => string }
  | { status: 202; location?: undefined }
  | { status?: undefined; location?: undefined };

export type Operation<P extends TSchema | undefined, Q extends TSchema, B extends TSchema | undefined, A extends Answer> = Declaration<P, Q, B, A> & Status<A>;

interface Declaration<P extends TSchema | undefined, Q extends TSchema, B extends TSchema | undefined, A extends Answer> {
  tier: Tier;
  /** Needs no key or session (sign-in, setup, invitations): `caller` is then undefined. */
  public?: true;
  operationId: string;
  summary: string;
  description?: string;
  /** Default: the tags of the file's routes (see `operations`). */
  tags?: string[];
  params?: P;
  querystring: Q;
  body?: B;
  /** The request may come without a body: it is then read as an empty one. */
  optionalBody?: boolean;
  /**
   * A read whose answer is one record with a `__v`: its ETag names that revision (`revisionTag`),
   * so the tag sent back in `If-Match` makes a write conditional on the revision that was read.
   */
  answersRevision?: true;
  answer: A;
  /** The error statuses this route can give besides those every authenticated route can (errorResponses). */
  errors?: readonly number[];
  message: string | ((input: Input<P, Q, B>, result: Result<A>) => string);
}

/**
 * Every write may be refused with a 403 before its handler: a cookie's request without its CSRF token
 * or from a foreign Origin (public routes check the Origin too), a read-only API key's.
 */
const REFUSED_WRITE = [403];

/** The `__v` of the record a read answers (`answersRevision`). */
function revisionOf(route: string, result: unknown): number {
  const revision = result instanceof RenderedFields ? result.revision : (result as { __v?: unknown }).__v;
  if (typeof revision !== 'number') throw new Error(`${route}: its answer has no revision to tag`);
  return revision;
}

/** The routes of one file, `route('PATCH /cards/:cardId', declaration, handler)`, tagged `tags` unless a declaration says otherwise. */
export function operations(app: FastifyInstance, tags: string[]) {
  return function route<A extends Answer, Q extends TSchema, P extends TSchema | undefined = undefined, B extends TSchema | undefined = undefined>(
    methodAndUrl: `${Method} /${string}`,
    operation: Operation<P, Q, B, A>,
    handler: (input: Input<P, Q, B>) => Promise<Result<A> | RenderedFields>,
  ) {
    const [method, url] = methodAndUrl.split(' ') as [Method, string];
    const { tier, answer, status = 200, location, errors = [], message, optionalBody, answersRevision, params, body, description } = operation;
    if (status === 201 && typeof location !== 'function') throw new Error(`${methodAndUrl}: a 201 needs its location`);
    const keyed = Array.isArray(answer) ? (answer as unknown as readonly [string, TSchema]) : undefined;
    if (answersRevision && method !== 'GET') throw new Error(`${methodAndUrl}: answersRevision is for a read`);
    app.route({
      method,
      url,
      config: operation.public ? { tier, public: true } : { tier },
      ...(optionalBody
        ? {
            preValidation: (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
              request.body ??= {};
              done();
            },
          }
        : {}),
      schema: {
        tags: operation.tags ?? tags,
        operationId: operation.operationId,
        summary: operation.summary,
        ...(description === undefined ? {} : { description }),
        ...(params === undefined ? {} : { params }),
        querystring: operation.querystring,
        ...(body === undefined ? {} : { body }),
        // the document says so too (completeDocument): @fastify/swagger marks every body required
        ...(optionalBody ? { 'x-optional-body': true } : {}),
        response: { [status]: keyed ? success(keyed[0], keyed[1]) : answer, ...errorResponses(...errors, ...(method === 'GET' ? [] : REFUSED_WRITE)) },
      },
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const input = {
          caller: request.caller,
          params: request.params,
          query: request.query,
          body: request.body,
          request,
          reply,
          serializer: (schema: TSchema) => reply.compileSerializationSchema(schema as unknown as Record<string, unknown>),
        } as Input<P, Q, B>;
        const result = await handler(input);
        if (answersRevision) reply.recordRevision = revisionOf(methodAndUrl, result);
        if (result instanceof RenderedFields) {
          if (typeof message !== 'string' || keyed || location)
            throw new Error(`${methodAndUrl}: a rendered answer takes a fixed message and a whole body schema, and creates nothing`);
          // a string with a JSON content type is sent as it is, past the route's serializer
          const said = `{"message":${JSON.stringify(message)},`;
          reply.contentTag = entityTag(`${said}${result.tagged}}`);
          return reply
            .status(status)
            .type('application/json; charset=utf-8')
            .send(`${said}${result.json}}` as never);
        }
        if (location) reply.header('Location', location(result));
        const said = typeof message === 'string' ? message : message(input, result);
        return reply.status(status).send(keyed ? { message: said, [keyed[0]]: result } : { message: said, ...(result as object) });
      },
    });
  };
}
