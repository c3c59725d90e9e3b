/**
 * How the pool's connections read PostgreSQL's values, given to each pool (pg's `types` option)
 * rather than set on pg's global parsers, so loading this code changes nothing for anyone else.
 */
import type pg from 'pg';
import { pgModule } from './pg-module.ts';

const INT8 = 20;
const parseInt8 = (value: string) => Number.parseInt(value, 10);

/** PostgreSQL returns int8 (bigint, count(*)) as strings; every such value here fits in a double. */
export const pgTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 && format !== 'binary' ? parseInt8 : pgModule().types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};
