/**
 * Route schemas compiled on a route's first use rather than all at start: compiling a validator
 * (ajv) and a serializer (fast-json-stringify) for every route made most of the memory a started
 * server holds, for operations an instance may never serve (docs/operations.md, Memory).
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Validate = ((data: any) => unknown) & { errors?: unknown };

/** A validator that compiles itself on its first call; Fastify reads its `errors` after each call. */
export function compiledOnFirstUse<V extends Validate>(compile: () => V): V {
  let validate: V | undefined;
  const lazy = ((data: unknown) => {
    validate ??= compile();
    const valid = validate(data);
    lazy.errors = validate.errors;
    return valid;
  }) as V;
  return lazy;
}

type BuildSerializer = ReturnType<typeof SerializerSelector>;

/**
 * Fastify's own serializer factory (fast-json-stringify over the shared schemas), each route's
 * serializer built when the route first answers with that status.
 */
export const buildSerializerOnFirstUse = ((externalSchemas: unknown, options: unknown) => {
  const build = (SerializerSelector() as (schemas: unknown, options: unknown) => (route: unknown) => (data: unknown) => string)(externalSchemas, options);
  return (route: unknown) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data: unknown) => {
      serialize ??= build(route);
      return serialize(data);
    };
  };
}) as unknown as BuildSerializer;
