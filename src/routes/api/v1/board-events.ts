import type { Transform } from 'node:stream';
import sseModule from '@fastify/sse';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { type LiveStream, openBoardStream, openNotificationStream } from '../../../domain/events/board-stream.ts';
import { reauthenticator } from '../../../plugins/auth.ts';
import { errorBody } from '../../../plugins/errors.ts';
import { BoardParams } from '../../../schemas/boards.ts';
import { errorResponses, NoQuery } from '../../../schemas/common.ts';

const tags = ['boards'];

/** The Last-Event-ID a client sent, if any. */
function lastEventIdOf(request: FastifyRequest): string | undefined {
  const lastEventId = request.headers['last-event-id'];
  return typeof lastEventId === 'string' && lastEventId !== '' ? lastEventId : undefined;
}

// The package's types declare an ES default export, but at run time its default import is the
// CommonJS export itself: the plugin wrapped by fastify-plugin (whose onRoute hook must see our route).
const sse = sseModule as unknown as typeof sseModule.default;

/** An SSE frame: `id: <event _id>` and `data: <the event as JSON>`, one per event. */
const EventFrame = Type.String({
  description: 'Server-Sent Events: per event `id: <_id>` and `data: <the event as JSON>`; a `: heartbeat` comment between them',
});

/** `presence=true`: the caller counts as viewing the board, and `event: presence` frames say who does. */
const BoardEventsQuery = Type.Object(
  {
    presence: Type.Optional(
      Type.Boolean({
        description:
          'Count the caller as viewing the board while the stream is open, and send `event: presence` frames (`data: {"viewers":[{_id, fullName, photoUrl}]}`, no `id`) whenever who views it changes',
      }),
    ),
  },
  { additionalProperties: false },
);

const routes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(sse, { heartbeatInterval: app.config.stream.heartbeatMs });
  // The plugin refuses a client that does not take text/event-stream with a 406 of its own form,
  // which the routes' error schema could not serialize (a 500): said in the contract's form.
  app.addHook('preSerialization', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
    if (reply.statusCode !== 406) return done(null, payload);
    done(null, errorBody(request, 'not_acceptable', 'This route answers a stream of events only: send Accept: text/event-stream'));
  });

  app.get(
    '/boards/:boardId/events',
    {
      sse: 'only',
      // HEAD of a stream that never ends would never answer.
      exposeHeadRoute: false,
      config: { tier: 'very-low' },
      schema: {
        tags,
        summary: 'Stream Board Events',
        operationId: 'streamBoardEvents',
        description:
          'A live stream (`text/event-stream`) of the events of the board as they commit, from now, or from after the event named by `Last-Event-ID` ' +
          '(400 when the record has no such event the caller reaches). Heartbeats keep it open; it ends when the caller no longer reaches the board. See the docs/events.md, "Live streams".',
        params: BoardParams,
        querystring: BoardEventsQuery,
        response: { 200: { description: 'the stream', content: { 'text/event-stream': { schema: EventFrame } } }, ...errorResponses(406) },
      },
    },
    async (request, reply) => {
      const presence = request.query.presence ? { refreshMs: app.config.stream.presenceRefreshMs } : undefined;
      const stream = await openBoardStream(app.services, request.caller, reauthenticator(request), request.params.boardId, lastEventIdOf(request), presence);
      serveStream(app, request, reply, stream, { boardId: request.params.boardId });
    },
  );

  app.get(
    '/notifications/stream',
    {
      sse: 'only',
      exposeHeadRoute: false,
      config: { tier: 'very-low' },
      schema: {
        tags: ['notifications'],
        summary: 'Stream My Notifications',
        operationId: 'streamMyNotifications',
        description:
          "A live stream (`text/event-stream`) of the caller's own notifications as they are created: each a `notification.created` event (`data.notification` is the Notification), " +
          'from now, or from after the event named by `Last-Event-ID` (400 when the record has no such event the caller reaches). It ends when the key stops authenticating. See the docs/events.md, "Live streams".',
        querystring: NoQuery,
        response: { 200: { description: 'the stream', content: { 'text/event-stream': { schema: EventFrame } } }, ...errorResponses(406) },
      },
    },
    async (request, reply) => {
      const stream = await openNotificationStream(app.services, request.caller, reauthenticator(request), lastEventIdOf(request));
      serveStream(app, request, reply, stream, { userId: request.caller.userId });
    },
  );
};

/**
 * Serves an open stream over the reply as Server-Sent Events: woken by the event bell, checked at each
 * heartbeat, ended by the client, by the server's close, or when the client falls too far behind.
 */
function serveStream(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, stream: LiveStream, logFields: Record<string, string>): void {
  const { heartbeatMs, bufferBytes } = app.config.stream;
  const channel = reply.sse;
  channel.keepAlive();
  channel.sendHeaders();
  // Node holds the head back until the first write; the client should know it is open now.
  reply.raw.flushHeaders();
  // The plugin's SSE framing (its `stream()` is a Transform, though typed as a bare writable).
  const out = channel.stream() as Transform;
  out.pipe(reply.raw, { end: false });
  // What waits for this client: bounded, so one that stops reading cannot hold memory.
  const buffered = () => out.writableLength + out.readableLength + reply.raw.writableLength;
  let fellBehind = false;
  const unsubscribe = app.eventBell.subscribe((ring) => stream.heard(ring));
  const heartbeats = setInterval(() => void stream.heartbeat(), heartbeatMs);
  heartbeats.unref();
  const refreshes = stream.presence ? setInterval(() => void stream.refreshPresence(), stream.presence.refreshMs) : undefined;
  refreshes?.unref();
  app.liveStreams.add(stream);
  channel.onClose(() => stream.end('the client closed the stream'));
  stream.start({
    send(event) {
      if (buffered() > bufferBytes) {
        fellBehind = true;
        return false;
      }
      out.write({ id: event._id, data: event });
      return true;
    },
    presence(viewers) {
      if (buffered() > bufferBytes) {
        fellBehind = true;
        return false;
      }
      out.write({ event: 'presence', data: { viewers } });
      return true;
    },
    end(reason, error) {
      unsubscribe();
      clearInterval(heartbeats);
      clearInterval(refreshes);
      app.liveStreams.delete(stream);
      request.log[error ? 'warn' : 'info']({ ...logFields, reason, ...(error ? { err: error } : {}) }, 'live stream ended');
      out.unpipe(reply.raw);
      // A client that fell behind is cut at once: its buffer is what must not be kept.
      if (fellBehind) reply.raw.destroy();
      else channel.close();
    },
  });
}

export default routes;
