import type { Multipart, MultipartFile } from '@fastify/multipart';
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import * as attachmentService from '../../../domain/attachments/service.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';
import { ChecklistItem, ItemAttachmentParams, ItemParams } from '../../../schemas/checklists.ts';
import { CardAttachmentParams, CardParams, LinkBody, RenameBody, ScopeQuery } from '../../../schemas/cards.ts';
import { errorResponses, success } from '../../../schemas/common.ts';
import { Attachment, Card } from '../../../schemas/records.ts';

/** Describes the multipart form for the docs; multipart bodies are read by the handler, not ajv. */
const MultipartForm = {
  properties: {
    name: { type: 'string', description: 'display name (send before file); defaults to the file name' },
    file: { type: 'string', format: 'binary' },
  },
};

/**
 * Reads an upload request: a JSON link, or a multipart form with one file in the field "file" and
 * optionally a "name" before it; anything else in the form is a 400. Hands the link or the file
 * (as a stream, never buffered) to the matching store function; the file ends the form, so what
 * follows it is read (and refused) by `endOfForm`, which the store calls before recording anything.
 */
async function readUpload<R>(
  request: FastifyRequest,
  storeLink: (link: { url: string; name?: string }) => Promise<R>,
  storeFile: (file: attachmentService.IncomingFile, name: string | undefined) => Promise<R>,
): Promise<{ kind: 'link' | 'file'; result: R }> {
  if (!request.isMultipart()) return { kind: 'link', result: await storeLink(request.body as { url: string; name?: string }) };
  const parts = request.parts();
  let name: string | undefined;
  for await (const part of parts) {
    if (part.type === 'file') {
      if (part.fieldname !== 'file') {
        part.file.resume();
        throw new ValidationError('Send exactly one file, in the field "file"', [{ field: `body.${part.fieldname}`, message: 'unexpected file' }]);
      }
      const file = part as MultipartFile;
      const endOfForm = () => refuseTrailingParts(parts);
      return { kind: 'file', result: await storeFile({ stream: file.file, filename: file.filename, mimeType: file.mimetype, endOfForm }, name) };
    }
    if (part.fieldname !== 'name' || typeof part.value !== 'string') {
      throw new ValidationError(`Unknown form field "${part.fieldname}"`, [{ field: `body.${part.fieldname}`, message: 'unknown field' }]);
    }
    name = part.value;
  }
  throw new ValidationError('A file is required in the form field "file"', [{ field: 'body.file', message: 'is required' }]);
}

/**
 * Reads what follows the file in a form: nothing may (a 400 naming the first part that does; a
 * second file is refused by the multipart limit of one file, a 413).
 */
async function refuseTrailingParts(parts: AsyncIterableIterator<Multipart>): Promise<void> {
  for await (const part of parts) {
    throw new ValidationError('The file must be the last part of the form', [{ field: `body.${part.fieldname}`, message: 'must come before the file' }]);
  }
}

/** The upload body: a multipart form, or a JSON link. */
const UploadBody = {
  content: {
    'multipart/form-data': { schema: MultipartForm },
    'application/json': { schema: LinkBody },
  },
};

const attachments: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/cards/:cardId/attachments',
    {
      config: { tier: 'medium' },
      schema: {
        tags: ['attachments'],
        summary: 'Upload Attachment (multipart file, or JSON link)',
        params: CardParams,
        querystring: ScopeQuery,
        body: UploadBody,
        response: {
          201: Type.Object({ message: Type.String(), attachment: Attachment, card: Card }),
          ...errorResponses(413, 415),
        },
      },
    },
    async (request, reply) => {
      const { cardId } = request.params;
      const { caller, query } = request;
      const { kind, result } = await readUpload(
        request,
        (link) => attachmentService.addLink(app.services, caller, cardId, query, link),
        (file, name) => attachmentService.uploadFile(app.services, caller, cardId, query, file, name),
      );
      return reply.status(201).send({ message: kind === 'link' ? 'Link attached' : 'File attached', ...result });
    },
  );

  app.get(
    '/cards/:cardId/attachments/:attachmentId/file',
    {
      config: { tier: 'very-low' },
      schema: {
        tags: ['attachments'],
        summary: "Download Attachment: the file's bytes",
        params: CardAttachmentParams,
        querystring: ScopeQuery,
        response: { 200: { description: 'the file, with its stored content type', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } }, ...errorResponses() },
      },
    },
    async (request, reply) => {
      const { cardId, attachmentId } = request.params;
      const file = await attachmentService.openFile(app.services, request.caller, cardId, attachmentId, request.query);
      return reply
        .header('Content-Type', file.mimeType)
        .header('Content-Length', String(file.size))
        .header('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.name)}`)
        .header('X-Content-Type-Options', 'nosniff')
        // The 200 schema documents binary bytes; the type provider cannot type a stream for it.
        .send(file.stream as never);
    },
  );

  app.patch(
    '/cards/:cardId/attachments/:attachmentId',
    {
      config: { tier: 'low' },
      schema: {
        tags: ['attachments'],
        summary: 'Update Attachment Name on Card',
        params: CardAttachmentParams,
        querystring: ScopeQuery,
        body: RenameBody,
        response: { 200: success('card', Card), ...errorResponses() },
      },
    },
    async (request) => {
      const { cardId, attachmentId } = request.params;
      const card = await attachmentService.renameCardAttachment(app.services, request.caller, cardId, attachmentId, request.query, request.body.name);
      return { message: 'Attachment renamed', card };
    },
  );

  app.delete(
    '/cards/:cardId/attachments/:attachmentId',
    {
      config: { tier: 'low' },
      schema: {
        tags: ['attachments'],
        summary: 'Delete Attachment from Card',
        params: CardAttachmentParams,
        querystring: ScopeQuery,
        response: { 200: success('card', Card), ...errorResponses() },
      },
    },
    async (request) => {
      const { cardId, attachmentId } = request.params;
      const card = await attachmentService.deleteCardAttachment(app.services, request.caller, cardId, attachmentId, request.query);
      return { message: 'Attachment deleted', card };
    },
  );

  app.post(
    '/checklist-items/:itemId/attachments',
    {
      config: { tier: 'medium' },
      schema: {
        tags: ['attachments'],
        summary: 'Upload Attachment on Checklist Item (multipart file, or JSON link)',
        description: 'As for cards. A file is downloaded at the `url` its record gives (under the card).',
        params: ItemParams,
        querystring: ScopeQuery,
        body: UploadBody,
        response: {
          201: Type.Object({ message: Type.String(), attachment: Attachment, checklistItem: ChecklistItem }),
          ...errorResponses(413, 415),
        },
      },
    },
    async (request, reply) => {
      const { itemId } = request.params;
      const { caller, query } = request;
      const { kind, result } = await readUpload(
        request,
        (link) => attachmentService.addItemLink(app.services, caller, itemId, query, link),
        (file, name) => attachmentService.uploadItemFile(app.services, caller, itemId, query, file, name),
      );
      return reply.status(201).send({ message: kind === 'link' ? 'Link attached' : 'File attached', ...result });
    },
  );

  app.patch(
    '/checklist-items/:itemId/attachments/:attachmentId',
    {
      config: { tier: 'low' },
      schema: {
        tags: ['attachments'],
        summary: 'Update Attachment Name on Checklist Item',
        params: ItemAttachmentParams,
        querystring: ScopeQuery,
        body: RenameBody,
        response: { 200: success('checklistItem', ChecklistItem), ...errorResponses() },
      },
    },
    async (request) => {
      const { itemId, attachmentId } = request.params;
      const checklistItem = await attachmentService.renameItemAttachment(app.services, request.caller, itemId, attachmentId, request.query, request.body.name);
      return { message: 'Attachment renamed', checklistItem };
    },
  );

  app.delete(
    '/checklist-items/:itemId/attachments/:attachmentId',
    {
      config: { tier: 'low' },
      schema: {
        tags: ['attachments'],
        summary: 'Delete Attachment from Checklist Item',
        description: 'Marks it deleted: it leaves the item\'s `attachments`; the file stays until `taskboard purge-attachments`.',
        params: ItemAttachmentParams,
        querystring: ScopeQuery,
        response: { 200: success('checklistItem', ChecklistItem), ...errorResponses() },
      },
    },
    async (request) => {
      const { itemId, attachmentId } = request.params;
      const checklistItem = await attachmentService.deleteItemAttachment(app.services, request.caller, itemId, attachmentId, request.query);
      return { message: 'Attachment deleted', checklistItem };
    },
  );
};

export default attachments;
