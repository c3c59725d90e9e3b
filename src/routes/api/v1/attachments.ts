import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import * as attachmentService from '../../../domain/attachments/service.ts';
import uploads from '../../../plugins/uploads.ts';
import { ChecklistItem, ItemAttachmentParams, ItemParams } from '../../../schemas/checklists.ts';
import { CardAttachmentParams, CardParams, LinkBody, RenameBody, ScopeQuery } from '../../../schemas/cards.ts';
import { errorResponses, Name, success } from '../../../schemas/common.ts';
import { Attachment, Card } from '../../../schemas/records.ts';

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

/** The two upload routes, in a context of their own: only they read multipart forms. */
const uploadRoutes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(uploads, { maxUploadBytes: app.config.maxUploadBytes });

  app.post(
    '/cards/:cardId/attachments',
    {
      config: { tier: 'medium' },
      schema: {
        tags: ['attachments'],
        operationId: 'uploadAttachment',
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
      const upload = await request.readUpload();
      const result =
        upload.kind === 'link'
          ? await attachmentService.addLink(app.services, caller, cardId, query, upload.link)
          : await attachmentService.uploadFile(app.services, caller, cardId, query, upload.file, upload.name);
      return reply.status(201).send({ message: upload.kind === 'link' ? 'Link attached' : 'File attached', ...result });
    },
  );

  app.post(
    '/checklist-items/:itemId/attachments',
    {
      config: { tier: 'medium' },
      schema: {
        tags: ['attachments'],
        operationId: 'uploadAttachmentOnChecklistItem',
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
      const upload = await request.readUpload();
      const result =
        upload.kind === 'link'
          ? await attachmentService.addItemLink(app.services, caller, itemId, query, upload.link)
          : await attachmentService.uploadItemFile(app.services, caller, itemId, query, upload.file, upload.name);
      return reply.status(201).send({ message: upload.kind === 'link' ? 'Link attached' : 'File attached', ...result });
    },
  );
};

const attachments: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(uploadRoutes);

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
        operationId: 'updateAttachmentNameOnCard',
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
        operationId: 'deleteAttachmentFromCard',
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

  app.patch(
    '/checklist-items/:itemId/attachments/:attachmentId',
    {
      config: { tier: 'low' },
      schema: {
        tags: ['attachments'],
        operationId: 'updateAttachmentNameOnChecklistItem',
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
        operationId: 'deleteAttachmentFromChecklistItem',
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
