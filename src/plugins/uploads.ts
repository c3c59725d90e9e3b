import { Readable } from 'node:stream';
import multipart, { type Multipart, type MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type TObject, Type } from 'typebox';
import type { IncomingFile } from '../domain/attachments/service.ts';
import { DomainError, PayloadTooLargeError, ValidationError } from '../domain/shared/errors.ts';
import { Name, TEXT_CAPS, TEXT_RULE, Text } from '../schemas/common.ts';
import { createAjv } from './validation.ts';

/** What an upload request carries: a JSON link (already validated by the route's schema), or one file. */
export type Upload =
  | { kind: 'link'; link: { url: string; name?: string } }
  | { kind: 'file'; file: IncomingFile; name: string | undefined; fields: Record<string, string> };

declare module 'fastify' {
  interface FastifyRequest {
    /** Reads the upload of this request; see `readUpload`. */
    readUpload(): Promise<Upload>;
  }
}

/** The form's text fields, held to the same rules as the JSON bodies' (the form does not pass ajv). */
const FormFields = Type.Object({ name: Type.Optional(Name) }, { additionalProperties: false });
const FileName = Type.Object({ file: Text({ maxLength: TEXT_CAPS.name }) });

/**
 * Multipart uploads, for the routes that take them: registered inside their own context only, so no
 * other route pays for (or accepts) a form. Hands the domain a plain stream of the file's bytes that
 * fails with a ValidationError when the form is malformed or goes on after the file, before it ends:
 * the domain stores nothing from a stream that failed.
 */
export default fp(
  async function uploadsPlugin(app: FastifyInstance, opts: { maxUploadBytes: number; limitName?: string; formFields?: TObject }) {
    await app.register(multipart, { limits: { fileSize: opts.maxUploadBytes, files: 1, fields: 10, parts: 12 } });
    const ajv = createAjv(false);
    const checkFields = ajv.compile(opts.formFields ?? FormFields);
    const checkFileName = ajv.compile(FileName);

    const limitName = opts.limitName ?? 'MAX_UPLOAD_BYTES';
    app.decorateRequest('readUpload', function readUpload(this: FastifyRequest) {
      return readUploadOf(this, limitName, {
        fields(fields) {
          if (!checkFields(fields)) throw Object.assign(new Error('invalid form'), { validation: checkFields.errors, validationContext: 'body' });
        },
        fileName(file) {
          if (!checkFileName({ file })) {
            const tooLong = checkFileName.errors?.[0]?.keyword === 'maxLength';
            throw new ValidationError('Invalid file name', [
              { field: 'body.file', message: tooLong ? `file name must have at most ${TEXT_CAPS.name} characters` : `file name ${TEXT_RULE}` },
            ]);
          }
        },
      });
    });
  },
  { name: 'uploads' },
);

/**
 * A JSON link, or a form with one file in the field "file" and optionally a "name" before it;
 * anything else in the form is a 400, and so is a form that busboy cannot read (no boundary, cut short).
 */
async function readUploadOf(
  request: FastifyRequest,
  limitName: string,
  check: { fields(fields: Record<string, string>): void; fileName(name: string): void },
): Promise<Upload> {
  if (!request.isMultipart()) return { kind: 'link', link: request.body as { url: string; name?: string } };
  const parts = request.parts();
  const fields: Record<string, string> = {};
  try {
    // Read with next(), not for-await: leaving a for-await loop would close the iterator, and the
    // parts after the file are still to be read (by the file's stream).
    for (let next = await parts.next(); !next.done; next = await parts.next()) {
      const part = next.value;
      if (part.type === 'file') {
        if (part.fieldname !== 'file') {
          part.file.resume();
          throw oneFileOnly(`body.${part.fieldname}`, 'unexpected file');
        }
        check.fileName(part.filename);
        const file = part as MultipartFile;
        return {
          kind: 'file',
          file: { stream: bytesThenEndOfForm(file, parts, limitName), filename: file.filename, mimeType: file.mimetype },
          name: fields.name,
          fields,
        };
      }
      if (typeof part.value !== 'string' || part.fieldname in fields) {
        throw new ValidationError(`Unexpected form field "${part.fieldname}"`, [{ field: `body.${part.fieldname}`, message: 'unknown field' }]);
      }
      fields[part.fieldname] = part.value;
      check.fields(fields);
    }
  } catch (error) {
    throw asClientError(error);
  }
  throw new ValidationError('A file is required in the form field "file"', [{ field: 'body.file', message: 'is required' }]);
}

/**
 * The file's bytes, then the end of the form: nothing may follow the file (a 400 naming the first
 * part that does; a second file is refused by the limit of one file, a 413). The check runs before
 * the stream ends, so a consumer that stores the stream sees it fail instead of complete.
 */
function bytesThenEndOfForm(file: MultipartFile, parts: AsyncIterableIterator<Multipart>, limitName: string): Readable {
  async function* bytes() {
    try {
      for await (const chunk of file.file) yield chunk as Buffer;
      // A size limit ends the stream early and marks it truncated instead of failing it.
      if (file.file.truncated) throw new PayloadTooLargeError(`The file is larger than this server accepts (${limitName})`);
      for await (const part of parts) {
        throw new ValidationError('The file must be the last part of the form', [{ field: `body.${part.fieldname}`, message: 'must come before the file' }]);
      }
    } catch (error) {
      throw asClientError(error);
    }
  }
  return Readable.from(bytes(), { objectMode: false });
}

/** A form with a file anywhere but in one "file" part. */
function oneFileOnly(field: string, message: string): ValidationError {
  return new ValidationError('Send exactly one file, in the field "file"', [{ field, message }]);
}

/**
 * busboy's own failures (no boundary, a body that ends early, a malformed part header) carry no
 * status: they are the client's malformed form, a 400, and so is a second file (busboy's files limit,
 * a 413 of its own words). Other limits (413) and our own errors pass as they are.
 */
function asClientError(error: unknown): unknown {
  if (error instanceof DomainError || (error as { validation?: unknown }).validation) return error;
  if ((error as { code?: string }).code === 'FST_FILES_LIMIT') return oneFileOnly('body.file', 'only one file per upload');
  const status = (error as { statusCode?: number }).statusCode;
  if (status && status < 500) return error;
  const reason = error instanceof Error ? error.message.replace(/^Multipart: /, '') : 'unreadable';
  return new ValidationError(`Malformed multipart body: ${reason}`, [{ field: 'body', message: 'is not a readable multipart/form-data body' }]);
}
