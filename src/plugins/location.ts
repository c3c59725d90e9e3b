import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { methodsOf, prependRouteHook } from './route-hooks.ts';

type Body = Record<string, Record<string, unknown> | undefined>;
type Params = Record<string, string>;

/** What a 201's body says of the new object: its id and where it sits. */
function field(body: Body, key: string, name: string): string {
  return String(body[key]?.[name] ?? '');
}

const cardPath = (cardId: string) => `/api/v1/cards/${cardId}`;
const commentsOf = (cardId: string) => `/api/v1/cards/${cardId}/comments`;

/** Where a new attachment is read: its file, or (a link, which has no file here) its card. */
function attachmentPath(body: Body): string {
  const card = field(body, 'attachment', 'card');
  return body.attachment?.type === 'file' ? `${cardPath(card)}/attachments/${field(body, 'attachment', '_id')}/file` : cardPath(card);
}

/** Where a new cheer shows: in the card's record, or in the comments page for a comment's or reply's. */
function cheerPath(body: Body): string {
  const card = field(body, 'cheer', 'card');
  return field(body, 'cheer', 'comment') ? commentsOf(card) : cardPath(card);
}

/**
 * The `Location` of every 201, by route: the GET path of the new object, or, for objects that have
 * no GET of their own, the GET of the collection that shows them.
 */
export const LOCATIONS: Record<string, (body: Body, params: Params) => string> = {
  'POST /api/v1/companies': () => '/api/v1/companies',
  'POST /api/v1/companies/:companyId/members': () => '/api/v1/companies',
  'POST /api/v1/teams': (body) => `/api/v1/teams?companyId=${field(body, 'team', 'company')}`,
  'POST /api/v1/boards': (body) => `/api/v1/boards/${field(body, 'board', '_id')}`,
  'POST /api/v1/lists': (body) => `/api/v1/boards/${field(body, 'list', 'board')}/lists`,
  'POST /api/v1/boards/:boardId/labels': (body) => `/api/v1/boards/${field(body, 'label', 'board')}/labels`,
  'POST /api/v1/cards': (body) => cardPath(field(body, 'card', '_id')),
  'POST /api/v1/cards/:cardId/copy': (body) => cardPath(field(body, 'card', '_id')),
  'POST /api/v1/cards/:cardId/comments': (body) => commentsOf(field(body, 'comment', 'card')),
  'POST /api/v1/comments/:commentId/discussions': (body) => commentsOf(field(body, 'discussion', 'card')),
  'POST /api/v1/cards/:cardId/checklists': (body) => `/api/v1/cards/${field(body, 'checklist', 'card')}/checklists`,
  'POST /api/v1/checklists/:checklistId/copy': (body) => `/api/v1/cards/${field(body, 'checklist', 'card')}/checklists`,
  'POST /api/v1/checklists/:checklistId/items': (body) => `/api/v1/checklist-items/${field(body, 'checklistItem', '_id')}`,
  'POST /api/v1/checklist-items/:itemId/copy': (body) => `/api/v1/checklist-items/${field(body, 'checklistItem', '_id')}`,
  'POST /api/v1/cards/:cardId/attachments': attachmentPath,
  'POST /api/v1/checklist-items/:itemId/attachments': attachmentPath,
  'POST /api/v1/cards/:cardId/cheers': cheerPath,
  'POST /api/v1/comments/:commentId/cheers': cheerPath,
  'POST /api/v1/discussions/:discussionId/cheers': cheerPath,
  'POST /api/v1/attachments/:attachmentId/cheers': cheerPath,
  'POST /api/v1/api-keys': () => '/api/v1/api-keys',
  'POST /api/v1/webhooks': (body) => `/api/v1/webhooks/${field(body, 'webhook', '_id')}`,
  // people sign in (docs/people.md)
  'POST /api/v1/setup': () => '/api/v1/auth/session',
  'POST /api/v1/companies/:companyId/invitations': (_body, params) => `/api/v1/companies/${params.companyId}/invitations`,
  'POST /api/v1/companies/:companyId/members/:userId/password-reset': () => '/api/v1/companies',
};

/** Sets `Location` on every 201, from the object the answer carries (see LOCATIONS). */
export default fp(
  async function locationPlugin(app: FastifyInstance) {
    // Only on the routes that create (found once, when the route is declared); synchronous.
    app.addHook('onRoute', (route) => {
      for (const method of methodsOf(route)) {
        const locate = LOCATIONS[`${method} ${route.url}`];
        if (!locate) continue;
        const setLocation = (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
          if (reply.statusCode === 201 && request.method === method && typeof payload === 'object' && payload !== null) {
            reply.header('Location', locate(payload as Body, request.params as Params));
          }
          done(null, payload);
        };
        prependRouteHook(route, 'preSerialization', setLocation);
      }
    });
  },
  { name: 'location' },
);
