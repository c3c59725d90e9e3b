import { errorCodes, type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * Two validators: bodies are taken as sent (a number where a string belongs is a 400, never coerced,
 * and unknown fields are rejected, never stripped); path and query strings are coerced to the
 * declared types, since they arrive as text.
 */
export default fp(
  async function validationPlugin(app: FastifyInstance) {
    const common: Options = { allErrors: false, removeAdditional: false, useDefaults: true, strict: false };
    const strict = new Ajv({ ...common, coerceTypes: false });
    const coercing = new Ajv({ ...common, coerceTypes: 'array' });
    for (const ajv of [strict, coercing]) {
      (addFormats as unknown as (a: Ajv) => void)(ajv);
      ajv.addKeyword({ keyword: 'x-examples' });
    }
    app.setValidatorCompiler(({ schema, httpPart }) =>
      (httpPart === 'body' ? strict : coercing).compile(schema as object),
    );

    // @fastify/multipart accepts a form on every route and leaves the body empty; a route whose body
    // schema does not list multipart/form-data takes JSON only, so a form there is a 415 like any
    // other non-JSON type, not a confusing "body must be object".
    app.addHook('preValidation', async (request) => {
      if (typeof request.isMultipart !== 'function' || !request.isMultipart()) return;
      const body = request.routeOptions.schema?.body as { content?: Record<string, unknown> } | undefined;
      if (body && !body.content?.['multipart/form-data']) {
        throw new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(request.headers['content-type']);
      }
    });
  },
  { name: 'validation' },
);
