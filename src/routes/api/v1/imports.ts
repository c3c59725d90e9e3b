import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ChosenPeople } from '../../../domain/imports/people.ts';
import { getImport, mapImportPeople, previewPeople, startImport, unmappedPeople } from '../../../domain/imports/service.ts';
import { readTaskboardExport } from '../../../domain/imports/taskboard.ts';
import { readTrelloExport } from '../../../domain/imports/trello.ts';
import type { Links } from '../../../domain/people/invitations.ts';
import { DomainError, ValidationError } from '../../../domain/shared/errors.ts';
import uploads from '../../../plugins/uploads.ts';
import { ImportParams, ImportPeople, ImportQuery, ImportRecord, MapImportPeopleBody } from '../../../schemas/imports.ts';
import { operations } from '../../operation.ts';

/** Describes the multipart form for the docs; the uploads plugin reads (and checks) it, not ajv. */
const ImportForm = {
  content: {
    'multipart/form-data': {
      schema: {
        properties: {
          people: {
            type: 'string',
            description:
              'optional, before the file: the people mapping as JSON, `{"<person key>": "<user id>" | null | {"invite": "<email>"}}` (null: nobody; invite: a company invitation, as a member of the team, that stands for the person until accepted); people it leaves out are matched by the rules',
          },
          file: { type: 'string', format: 'binary', description: 'the export, JSON' },
        },
        additionalProperties: false,
      },
    },
  },
};

/** The form of Get Import People: the file alone. */
const PeopleForm = {
  content: {
    'multipart/form-data': {
      schema: { properties: { file: { type: 'string', format: 'binary', description: 'the export, JSON' } }, additionalProperties: false },
    },
  },
};

/** The form's text fields an import takes (the file's part is read apart). */
const ImportFormFields = Type.Object({ people: Type.Optional(Type.String({ maxLength: 1_000_000 })) }, { additionalProperties: false });

/** The `people` field as a mapping and the people to invite, or a 400 saying what is wrong with it. */
function chosenPeople(text: string | undefined): { people: ChosenPeople; invite: Record<string, string> } | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const valid =
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((user) => user === null || (typeof user === 'string' && /^[0-9a-f]{24}$/.test(user)) || isInvite(user));
  if (!valid) {
    throw new ValidationError('The people mapping must be a JSON object of person keys to user ids, null or {"invite": email}', [
      { field: 'body.people', message: 'must be a JSON object of person keys to user ids, null or {"invite": email}' },
    ]);
  }
  const entries = Object.entries(value as Record<string, string | null | { invite: string }>);
  return {
    people: Object.fromEntries(entries.filter((entry): entry is [string, string | null] => !isInvite(entry[1]))),
    invite: Object.fromEntries(entries.flatMap(([key, choice]) => (isInvite(choice) ? [[key, choice.invite]] : []))),
  };
}

function isInvite(choice: unknown): choice is { invite: string } {
  return (
    typeof choice === 'object' &&
    choice !== null &&
    Object.keys(choice).length === 1 &&
    typeof (choice as { invite?: unknown }).invite === 'string' &&
    (choice as { invite: string }).invite.length <= 254
  );
}

/** The upload's text: the whole file, bounded by IMPORT_MAX_BYTES (the form's limit). */
async function fileText(stream: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

const routes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(uploads, { maxUploadBytes: app.config.imports.maxFileBytes, limitName: 'IMPORT_MAX_BYTES', formFields: ImportFormFields });
  const route = operations(app, ['imports']);
  // where invitation links point and whether they are mailed, as the invitations' routes say
  const links = (request: FastifyRequest): Links => ({
    baseUrl: app.config.people.publicUrl ?? `${request.protocol}://${request.host}`,
    mail: app.config.people.mail.smtpUrl !== undefined,
  });
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

  /** The upload's file as text, or a 415 when the request is no form with a file. */
  async function uploadedText(request: Parameters<Parameters<typeof route>[2]>[0]['request']) {
    if (!request.isMultipart()) {
      throw new DomainError(415, 'unsupported_media_type', 'Send the export as multipart/form-data, the file in the field "file"');
    }
    const upload = await request.readUpload();
    if (upload.kind !== 'file') throw new DomainError(415, 'unsupported_media_type', 'Send the export as multipart/form-data, the file in the field "file"');
    return { text: await fileText(upload.file.stream), fields: upload.fields };
  }

  for (const [source, { read, summary, what }] of Object.entries(sources)) {
    route(
      `POST /imports/${source}/people`,
      {
        tier: 'medium',
        operationId: source === 'trello' ? 'getTrelloImportPeople' : 'getTaskboardImportPeople',
        summary: source === 'trello' ? 'Get Trello Import People' : 'Get Taskboard Import People',
        description:
          `Reads ${what} (multipart, field \`file\`) and answers the people it names, each with the member of the team \`teamId\` the rules suggest ` +
          "(the same id, the email, the full name, the username), how many cards, items and comments are theirs, and the team's members to choose from: " +
          'what an import dialog shows before the import. Writes nothing; a malformed file is a 400.',
        querystring: ImportQuery,
        body: PeopleForm as never,
        answer: ['importPeople', ImportPeople],
        errors: [413, 415],
        message: 'Import people read',
      },
      async ({ caller, query, request }) => {
        const { text, fields } = await uploadedText(request);
        if (fields.people !== undefined) throw new ValidationError('Unexpected form field "people"', [{ field: 'body.people', message: 'unknown field' }]);
        return previewPeople(app.services, caller, { teamId: query.teamId, scope: { companyId: query.companyId }, plan: () => read(text) });
      },
    );

    route(
      `POST /imports/${source}`,
      {
        tier: 'medium',
        operationId: source === 'trello' ? 'importTrelloBoard' : 'importTaskboardBoard',
        summary,
        description:
          `Starts importing ${what} (multipart, field \`file\`, at most IMPORT_MAX_BYTES) as a new board of the team \`teamId\`. ` +
          'A malformed file is a 400 naming what is wrong, before anything is written. Answers 202 with the import; Get Import follows it: ' +
          'the board appears whole once the import is done, and a failed import leaves nothing behind. ' +
          "An optional form field `people` before the file maps the file's people (Get Import People names them) to members of the team or to nobody.",
        querystring: ImportQuery,
        body: ImportForm as never,
        answer: ['import', ImportRecord],
        status: 202,
        errors: [413, 415],
        message: 'Import started',
      },
      async ({ caller, query, request }) => {
        const { text, fields } = await uploadedText(request);
        const chosen = chosenPeople(fields.people);
        const started = await startImport(
          app.services,
          caller,
          {
            teamId: query.teamId,
            scope: { companyId: query.companyId },
            plan: () => read(text),
            people: chosen?.people,
            invite: chosen && { people: chosen.invite, links: links(request) },
          },
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

  route(
    'GET /imports/:importId/people',
    {
      tier: 'very-low',
      operationId: 'getUnmappedImportPeople',
      summary: 'Get Unmapped Import People',
      description:
        "The people of an import mapped to nobody, each with the cards and checklist items still waiting for them, and the team's members to choose from (Map Import People).",
      params: ImportParams,
      querystring: Type.Object({}, { additionalProperties: false }),
      answer: ['importPeople', ImportPeople],
      message: 'Unmapped import people read',
    },
    ({ caller, params }) => unmappedPeople(app.services, caller, params.importId),
  );

  route(
    'POST /imports/:importId/people',
    {
      tier: 'medium',
      operationId: 'mapImportPeople',
      summary: 'Map Import People',
      description:
        "Maps unmapped people of a done import (the report's `members.unmatched`, by `key`) to members of the team: each chosen member is put on the cards " +
        'and checklist items the person was on (one change of each card, in one transaction) and the person moves to `members.matched`. ' +
        'A person given `invite` (an email) instead gets a company invitation (role member, to the team; owners and admins only, as Create Invitation) ' +
        'that stands for them: accepting it puts the new member there. The answer carries the links made (`invitations`); revoking one leaves the person unmapped. ' +
        "Their comments stay the importer's, with the line naming them. A person not unmapped, or a user outside the team, is a 400; an import not done, a 409.",
      params: ImportParams,
      querystring: Type.Object({}, { additionalProperties: false }),
      body: MapImportPeopleBody,
      answer: ['import', ImportRecord],
      errors: [409],
      message: 'Import people mapped',
    },
    ({ caller, params, body, request }) => mapImportPeople(app.services, caller, params.importId, body, links(request)),
  );
};

export default routes;
