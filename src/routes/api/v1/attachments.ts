import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import { combineRanges, parse as parseRange } from 'range-parser';
import * as attachmentService from '../../../domain/attachments/service.ts';
import { RangeNotSatisfiableError } from '../../../domain/shared/errors.ts';
import uploads from '../../../plugins/uploads.ts';
import { CardAttachmentParams, CardParams, LinkBody, RenameBody, ScopeQuery } from '../../../schemas/cards.ts';
import { ChecklistItem, ItemAttachmentParams, ItemParams } from '../../../schemas/checklists.ts';
import { errorResponses, Name } from '../../../schemas/common.ts';
import { Attachment, Card } from '../../../schemas/records.ts';
import { operations } from '../../operation.ts';

/** Describes the multipart form for the docs; the uploads plugin reads (and checks) it, not ajv. */
const MultipartForm = {
  properties: {
    name: { ...Name, description: 'display name (send before file); defaults to the file name' },
    file: { type: 'string', format: 'binary' },
  },
};

/** The upload body: a multipart form, or a JSON link. */
const UploadBody = {
  content: {
    'multipart/form-data': { schema: MultipartForm },
    'application/json': { schema: LinkBody },
  },
};

/** Where a new attachment is read: its file, or (a link, which has no file here) its card. */
function attachmentLocation({ attachment }: { attachment: { _id: string; type: string; card: string } }): string {
  const card = `/api/v1/cards/${attachment.card}`;
  return attachment.type === 'file' ? `${card}/attachments/${attachment._id}/file` : card;
}

/** What the two uploads share: a multipart form or a JSON link in, 201 with what it attached out. */
const upload = {
  tier: 'medium',
  querystring: ScopeQuery,
  body: UploadBody,
  status: 201,
  location: attachmentLocation,
  errors: [413, 415],
  message: (_: unknown, { attachment }: { attachment: { type: string } }) => (attachment.type === 'link' ? 'Link attached' : 'File attached'),
} as const;

/** The two upload routes, in a context of their own: only they read multipart forms. */
const uploadRoutes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(uploads, { maxUploadBytes: app.config.maxUploadBytes });
  const route = operations(app, ['attachments']);

  route(
    'POST /cards/:cardId/attachments',
    {
      operationId: 'uploadAttachment',
      summary: 'Upload Attachment (multipart file, or JSON link)',
      params: CardParams,
      answer: Type.Object({ message: Type.String(), attachment: Attachment, card: Card }),
      ...upload,
    },
    async ({ caller, params, query, request }) => {
      const form = await request.readUpload();
      return form.kind === 'link'
        ? attachmentService.addLink(app.services, caller, params.cardId, query, form.link)
        : attachmentService.uploadFile(app.services, caller, params.cardId, query, form.file, form.name);
    },
  );

  route(
    'POST /checklist-items/:itemId/attachments',
    {
      operationId: 'uploadAttachmentOnChecklistItem',
      summary: 'Upload Attachment on Checklist Item (multipart file, or JSON link)',
      description: 'As for cards. A file is downloaded at the `url` its record gives (under the card).',
      params: ItemParams,
      answer: Type.Object({ message: Type.String(), attachment: Attachment, checklistItem: ChecklistItem }),
      ...upload,
    },
    async ({ caller, params, query, request }) => {
      const form = await request.readUpload();
      return form.kind === 'link'
        ? attachmentService.addItemLink(app.services, caller, params.itemId, query, form.link)
        : attachmentService.uploadItemFile(app.services, caller, params.itemId, query, form.file, form.name);
    },
  );
};

/**
 * How a download is answered: 304 when the client's copy is current (If-None-Match), 206 with one
 * range (Range, unless If-Range names another version), 416 for a range outside the file, else 200.
 * Several ranges in one request are answered with the whole file, as a server may.
 */
function downloadAnswer(
  headers: Record<string, string | string[] | undefined>,
  file: { size: number; sha256: string | null },
): { status: 200 | 304 | 416 } | { status: 206; range: { start: number; end: number } } {
  const etag = file.sha256 ? `"${file.sha256}"` : undefined;
  const noneMatch = headers['if-none-match'];
  if (etag && typeof noneMatch === 'string' && noneMatch.split(',').some((tag) => [etag, `W/${etag}`, '*'].includes(tag.trim()))) return { status: 304 };
  const rangeHeader = headers.range;
  if (typeof rangeHeader !== 'string') return { status: 200 };
  const ifRange = headers['if-range'];
  if (typeof ifRange === 'string' && ifRange.trim() !== etag) return { status: 200 };
  const parsed = parseRange(file.size, rangeHeader);
  // A malformed Range header is ignored (RFC 9110): the whole file.
  if (parsed.type !== 'bytes' || parsed.code & 1) return { status: 200 };
  if (parsed.ranges.length === 0) return { status: 416 };
  const ranges = combineRanges(parsed.ranges);
  const [range] = ranges;
  if (ranges.length !== 1 || !range) return { status: 200 };
  return { status: 206, range: { start: range.start, end: range.end } };
}

const attachments: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(uploadRoutes);
  const route = operations(app, ['attachments']);
  const card = ['card', Card] as const;
  const item = ['checklistItem', ChecklistItem] as const;

  app.get(
    '/cards/:cardId/attachments/:attachmentId/file',
    {
      config: { tier: 'very-low' },
      schema: {
        tags: ['attachments'],
        operationId: 'downloadAttachment',
        summary: "Download Attachment: the file's bytes",
        params: CardAttachmentParams,
        querystring: ScopeQuery,
        response: {
          200: {
            description: 'the file, with its stored content type; `ETag` is the SHA-256 of its bytes',
            content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
          },
          206: {
            description: 'the one byte range the `Range` header asked for',
            content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
          },
          302: { description: 'ATTACHMENT_DOWNLOAD=redirect: `Location` is a presigned URL of the bucket, valid at most 5 minutes' },
          304: { description: 'the copy named in If-None-Match is current' },
          ...errorResponses(416),
        },
      },
    },
    async (request, reply) => {
      const { cardId, attachmentId } = request.params;
      const file = await attachmentService.openFile(app.services, request.caller, cardId, attachmentId, request.query);
      reply.header('Cache-Control', 'private, no-cache');
      if (app.config.attachments.download === 'redirect' && file.presign) {
        // The access check above is the server's; the URL it hands out is short-lived and names one object.
        return reply.redirect(await file.presign(app.config.attachments.redirectSeconds), 302);
      }
      const answer = downloadAnswer(request.headers, file);
      if (file.sha256) reply.header('ETag', `"${file.sha256}"`);
      reply.header('Accept-Ranges', 'bytes');
      if (answer.status === 304) return reply.code(304).send();
      if (answer.status === 416) {
        reply.header('Content-Range', `bytes */${file.size}`);
        throw new RangeNotSatisfiableError(`The range is outside the file's ${file.size} bytes`);
      }
      const range = answer.status === 206 ? answer.range : undefined;
      const stream = await file.read(range);
      if (range) reply.code(206).header('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`);
      return (
        reply
          .header('Content-Type', file.mimeType)
          .header('Content-Length', String(range ? range.end - range.start + 1 : file.size))
          .header('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.name)}`)
          .header('X-Content-Type-Options', 'nosniff')
          // The 200 schema documents binary bytes; the type provider cannot type a stream for it.
          .send(stream as never)
      );
    },
  );

  route(
    'PATCH /cards/:cardId/attachments/:attachmentId',
    {
      tier: 'low',
      operationId: 'updateAttachmentNameOnCard',
      summary: 'Update Attachment Name on Card',
      params: CardAttachmentParams,
      querystring: ScopeQuery,
      body: RenameBody,
      answer: card,
      message: 'Attachment renamed',
    },
    ({ caller, params, query, body }) => attachmentService.renameCardAttachment(app.services, caller, params.cardId, params.attachmentId, query, body.name),
  );

  route(
    'DELETE /cards/:cardId/attachments/:attachmentId',
    {
      tier: 'low',
      operationId: 'deleteAttachmentFromCard',
      summary: 'Delete Attachment from Card',
      params: CardAttachmentParams,
      querystring: ScopeQuery,
      answer: card,
      message: 'Attachment deleted',
    },
    ({ caller, params, query }) => attachmentService.deleteCardAttachment(app.services, caller, params.cardId, params.attachmentId, query),
  );

  route(
    'PATCH /checklist-items/:itemId/attachments/:attachmentId',
    {
      tier: 'low',
      operationId: 'updateAttachmentNameOnChecklistItem',
      summary: 'Update Attachment Name on Checklist Item',
      params: ItemAttachmentParams,
      querystring: ScopeQuery,
      body: RenameBody,
      answer: item,
      message: 'Attachment renamed',
    },
    ({ caller, params, query, body }) => attachmentService.renameItemAttachment(app.services, caller, params.itemId, params.attachmentId, query, body.name),
  );

  route(
    'DELETE /checklist-items/:itemId/attachments/:attachmentId',
    {
      tier: 'low',
      operationId: 'deleteAttachmentFromChecklistItem',
      summary: 'Delete Attachment from Checklist Item',
      description: "Marks it deleted: it leaves the item's `attachments`; the file stays until `taskboard purge-attachments`.",
      params: ItemAttachmentParams,
      querystring: ScopeQuery,
      answer: item,
      message: 'Attachment deleted',
    },
    ({ caller, params, query }) => attachmentService.deleteItemAttachment(app.services, caller, params.itemId, params.attachmentId, query),
  );
};

export default attachments;
