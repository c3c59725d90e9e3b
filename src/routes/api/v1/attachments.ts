import type { MultipartFile } from '@fastify/multipart';
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import * as attachmentService from '../../../domain/attachments/service.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';
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
        body: {
          content: {
            'multipart/form-data': { schema: MultipartForm },
            'application/json': { schema: LinkBody },
          },
        },
        response: {
          201: Type.Object({ message: Type.String(), attachment: Attachment, card: Card }),
          ...errorResponses(413, 415),
        },
      },
    },
    async (request, reply) => {
      const { cardId } = request.params;
      if (!request.isMultipart()) {
        const link = request.body as { url: string; name?: string };
        const result = await attachmentService.addLink(app.services, request.caller, cardId, request.query, link);
        return reply.status(201).send({ message: 'Link attached', ...result });
      }
      let name: string | undefined;
      let result: Awaited<ReturnType<typeof attachmentService.uploadFile>> | undefined;
      for await (const part of request.parts()) {
        if (part.type === 'file') {
          if (part.fieldname !== 'file' || result) {
            part.file.resume();
            throw new ValidationError('Send exactly one file, in the field "file"', [{ field: `body.${part.fieldname}`, message: 'unexpected file' }]);
          }
          const file = part as MultipartFile;
          result = await attachmentService.uploadFile(
            app.services,
            request.caller,
            cardId,
            request.query,
            { stream: file.file, filename: file.filename, mimeType: file.mimetype },
            name,
          );
        } else if (part.fieldname === 'name' && typeof part.value === 'string') {
          name = part.value;
        } else {
          throw new ValidationError(`Unknown form field "${part.fieldname}"`, [{ field: `body.${part.fieldname}`, message: 'unknown field' }]);
        }
      }
      if (!result) throw new ValidationError('A file is required in the form field "file"', [{ field: 'body.file', message: 'is required' }]);
      return reply.status(201).send({ message: 'File attached', ...result });
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
};

export default attachments;
