import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * An ajv as the app validates with: bodies are taken as sent (`coerceTypes: false`: a number where a
 * string belongs is a 400, and unknown fields are rejected, never stripped); path and query strings
 * are coerced to the declared types, since they arrive as text. `verbose` keeps the refused value in
 * each issue, so that the error details can say why in plain words (blank, or a control character).
 */
export function createAjv(coerce: boolean): Ajv {
  const options: Options = { allErrors: false, removeAdditional: false, useDefaults: true, strict: false, verbose: true };
  const ajv = new Ajv({ ...options, coerceTypes: coerce ? 'array' : false });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  ajv.addKeyword({ keyword: 'x-examples' });
  return ajv;
}

export default fp(
  async function validationPlugin(app: FastifyInstance) {
    const strict = createAjv(false);
    const coercing = createAjv(true);
    app.setValidatorCompiler(({ schema, httpPart }) =>
      (httpPart === 'body' ? strict : coercing).compile(schema as object),
    );
  },
  { name: 'validation' },
);
