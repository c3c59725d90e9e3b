import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { namedSchemas } from '../schemas/named.ts';
import { compiledOnFirstUse } from './lazy-compilers.ts';

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
  // the named schemas (Card, Error …) that route schemas reference by `$ref`
  ajv.addSchema(namedSchemas());
  return ajv;
}

export default fp(
  async function validationPlugin(app: FastifyInstance) {
    // Shared with the serializer and the OpenAPI document (a `$ref: 'Card'` resolves to it).
    for (const schema of namedSchemas()) app.addSchema(schema);
    const strict = createAjv(false);
    const coercing = createAjv(true);
    app.setValidatorCompiler(({ schema, httpPart }) => compiledOnFirstUse(() => (httpPart === 'body' ? strict : coercing).compile(schema as object)));

    // Unknown query parameters are a 400 on every operation only if every operation declares its
    // query, closed to others (NoQuery when it takes none): a documented route without one refuses
    // to start. Hidden
    // routes (the OpenAPI document, the docs UI's assets) are not operations.
    const routes: RouteOptions[] = [];
    app.addHook('onRoute', (route) => {
      const query = route.schema?.querystring as { additionalProperties?: unknown } | undefined;
      if (route.schema && !route.schema.hide && query?.additionalProperties !== false) routes.push(route);
    });
    app.addHook('onReady', async () => {
      if (routes.length) {
        throw new Error(
          `routes without a closed querystring schema (additionalProperties: false; NoQuery when they take none): ${routes.map((r) => `${r.method} ${r.url}`).join(', ')}`,
        );
      }
    });
  },
  { name: 'validation' },
);
