import type { FastifyInstance } from 'fastify';
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
  },
  { name: 'validation' },
);
