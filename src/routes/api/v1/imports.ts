import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { getImport, startImport } from '../../../domain/imports/service.ts';
import { readTaskboardExport } from '../../../domain/imports/taskboard.ts';
import { readTrelloExport } from '../../../domain/imports/trello.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import uploads from '../../../plugins/uploads.ts';
import { ImportParams, ImportQuery, ImportRecord } from '../../../schemas/imports.ts';
import { operations } from '../../operation.ts';

/** Describes the multipart form for the docs; the uploads plugin reads (and checks) it, not ajv. */
const ImportForm = {
  content: {
    'multipart/form-data': {
      schema: { properties: { file: { type: 'string', format: 'binary', description: 'the export, JSON' } }, additionalProperties: false },
    },
  },
};

/** The upload's text: the whole file, bounded by IMPORT_MAX_BYTES (the form's limit). */
async function fileText(stream: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

const routes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(uploads, { maxUploadBytes: app.config.imports.maxFileBytes, limitName: 'IMPORT_MAX_BYTES' });
  const route = operations(app, ['imports']);
  // imports still writing: the server waits for them on close (each fails at its next batch and removes what it wrote)
  const running = new Set<Promise<void>>();
  let closing = false;
  app.addHook('onClose', async () => {
    closing = true;
    await Promise.allSettled(running);
  });

  const sources = {
    trello: { read: readTrelloExport, summary: 'Import Trello Board', what: 'Trello\'s "Export as JSON" file of a board' },
    taskboard: { read: readTaskboardExport, summary: 'Import Taskboard Board', what: 'a board export (`BoardExport`, as Export Board answers it)' },
  } as const;

  for (const [source, { read, summary, what }] of Object.entries(sources)) {
    route(
      `POST /imports/${source}`,
      {
        tier: 'medium',
        operationId: source === 'trello' ? 'importTrelloBoard' : 'importTaskboardBoard',
        summary,
        description:
          `Starts importing ${what} (multipart, field \`file\`, at most IMPORT_MAX_BYTES) as a new board of the team \`teamId\`. ` +
          'A malformed file is a 400 naming what is wrong, before anything is written. Answers 202 with the import; Get Import follows it: ' +
          'the board appears whole once the import is done, and a failed import leaves nothing behind.',
        querystring: ImportQuery,
        body: ImportForm as never,
        answer: ['import', ImportRecord],
        status: 202,
        errors: [413, 415],
        message: 'Import started',
      },
      async ({ caller, query, request }) => {
        if (!request.isMultipart()) {
          throw new DomainError(415, 'unsupported_media_type', 'Send the export as multipart/form-data, the file in the field "file"');
        }
        const upload = await request.readUpload();
        if (upload.kind !== 'file')
          throw new DomainError(415, 'unsupported_media_type', 'Send the export as multipart/form-data, the file in the field "file"');
        const text = await fileText(upload.file.stream);
        const started = await startImport(
          app.services,
          caller,
          { teamId: query.teamId, scope: { companyId: query.companyId }, plan: () => read(text) },
          { goOn: () => !closing, onError: (error) => app.log.error({ err: error }, 'board import failed'), leaseMs: app.config.imports.leaseMs },
        );
        running.add(started.finished);
        void started.finished.then(() => running.delete(started.finished));
        return started.import;
      },
    );
  }

  route(
    'GET /imports/:importId',
    {
      tier: 'very-low',
      operationId: 'getImport',
      summary: 'Get Import',
      description: 'An import of a team the caller reaches: its status, progress (cards written) and report; `board` names the new board once done.',
      params: ImportParams,
      querystring: Type.Object({}, { additionalProperties: false }),
      answer: ['import', ImportRecord],
      message: 'Import found',
    },
    ({ caller, params }) => getImport(app.services, caller, params.importId),
  );
};

export default routes;
