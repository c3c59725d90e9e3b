import { Type } from 'typebox';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../domain/shared/pagination.ts';

/** The query fields of every paginated collection (spread them into the route's querystring object). */
export const PageQueryFields = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      default: DEFAULT_PAGE_SIZE,
      description: `items per page (default ${DEFAULT_PAGE_SIZE}, max ${MAX_PAGE_SIZE})`,
    }),
  ),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'the `nextCursor` of the previous page; absent for the first page' })),
};

export const NextCursor = Type.Union([Type.String(), Type.Null()], {
  description: 'pass as `cursor` to get the next page; null when this page is the last',
});
