import { type Static, type TSchema, Type } from 'typebox';

/**
 * The named schemas (Card, Label, Error …): each is added once to the app (`app.addSchema`) and to
 * the validators, and every use is a `$ref` to it, so validation, serialization and the OpenAPI
 * document (`#/components/schemas/<name>`) share one definition and generated clients get one type
 * per record instead of a copy per operation.
 */
const components = new Map<string, TSchema>();

/** Registers `schema` under `name`; answers the reference to use in place of it (typed as it). */
export function named<T extends TSchema>(name: string, schema: T) {
  if (components.has(name)) throw new Error(`two schemas are named ${name}`);
  components.set(name, { ...schema, $id: name });
  return Type.Unsafe<Static<T>>({ $ref: name });
}

/** Every named schema, to add to the app and to the validators before routes compile. */
export function namedSchemas(): TSchema[] {
  return [...components.values()];
}

/** The named schemas by name: the context TypeBox's own checker resolves `$ref`s in. */
export function namedSchemaContext(): Record<string, TSchema> {
  return Object.fromEntries(components);
}
