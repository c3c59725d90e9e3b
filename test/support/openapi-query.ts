/**
 * The required query parameters of an operation of /openapi.json, filled with values that pass
 * its schema, for the sweeps that call every documented operation: with them, what a sweep probes
 * (an unknown id, an unknown parameter) is what the answer is about.
 */
interface QueryParameter {
  in: string;
  name: string;
  required?: boolean;
  schema?: { type?: string; format?: string; enum?: unknown[] };
}

/** `name=value&…` for the operation's required query parameters ('' when it has none). */
export function requiredQuery(operation: { parameters?: readonly QueryParameter[] }): string {
  let dates = 0;
  return (operation.parameters ?? [])
    .filter((p) => p.in === 'query' && p.required)
    .map((p) => {
      const schema = p.schema ?? {};
      // dates in the order given, a day apart: a window's end comes after its start
      const value =
        schema.format === 'date-time'
          ? new Date(Date.UTC(2031, 0, 1 + dates++)).toISOString()
          : schema.enum?.length
            ? String(schema.enum[0])
            : schema.type === 'integer' || schema.type === 'number'
              ? '1'
              : schema.type === 'boolean'
                ? 'true'
                : 'x';
      return `${encodeURIComponent(p.name)}=${encodeURIComponent(value)}`;
    })
    .join('&');
}
