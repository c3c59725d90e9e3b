import { Type } from 'typebox';
import { Id, ScopeQuery, Text, Timestamp } from './common.ts';
import { NextCursor, PageQueryFields } from './pagination.ts';

export const SearchQuery = Type.Object(
  {
    // optional to the schema, so that a request without it is told what else is wrong too; the
    // service answers its absence with a 400 naming querystring.q
    q: Type.Optional(
      Text({
        blank: false,
        maxLength: 500,
        description:
          'words (all must match, in any order; each finds the words it starts: `log` finds `login`, not `catalog`; text in Chinese, Japanese or Korean is found by any part of it), ' +
          '`"quoted phrases"`, `-word` to leave out, and operators: `label:name`, `member:me` or `member:<email or name>`, ' +
          '`due:overdue|day|week|month|none`, `is:archived` (only archived things; otherwise they are left out), `is:complete`, ' +
          '`is:incomplete`, `board:"name"`, `list:"name"`, `has:attachments`, `created:N` (within the last N days). ' +
          'Case and accents do not matter. Required; a missing or malformed query is a 400 that says what is wrong.',
        examples: ['login bug -flaky label:backend', '"release notes" due:week'],
      }),
    ),
    ...ScopeQuery.properties,
    boardId: Type.Optional(Id),
    types: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'comma-separated hit types to keep: card, comment, discussion, checklistItem, attachment, board, list (default: all)',
        examples: ['card,comment'],
      }),
    ),
    ...PageQueryFields,
  },
  { additionalProperties: false },
);

const Named = (what: string) => Type.Object({ _id: Id, name: Type.String() }, { additionalProperties: false, description: what });

export const SearchHit = Type.Object(
  {
    type: Type.Union(
      [
        Type.Literal('card'),
        Type.Literal('comment'),
        Type.Literal('discussion'),
        Type.Literal('checklistItem'),
        Type.Literal('attachment'),
        Type.Literal('board'),
        Type.Literal('list'),
      ],
      { description: 'what was found' },
    ),
    _id: Id,
    title: Type.String({ description: "the card's name for a card, comment or discussion; else the thing's own name" }),
    snippet: Type.Object(
      {
        text: Type.String({ description: 'plain text (never HTML), at most about 160 characters, `…` where cut' }),
        highlights: Type.Array(Type.Object({ start: Type.Integer({ minimum: 0 }), length: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }), {
          description: 'where the words searched for are in `text`: offsets and lengths in UTF-16 code units, in order',
        }),
      },
      { additionalProperties: false },
    ),
    archived: Type.Boolean({ description: 'the thing, or the card, list or board it lives in, is archived' }),
    updatedAt: Timestamp,
    card: Type.Union([Named('the card it is or lives on'), Type.Null()]),
    list: Type.Union([Named('the list it is or lives in'), Type.Null()]),
    board: Named('the board it is or lives on'),
    team: Named('its team'),
    company: Named('its company'),
  },
  { $id: 'SearchHit', additionalProperties: false },
);

export const SearchAnswer = Type.Object({
  message: Type.String(),
  hits: Type.Array(SearchHit, { description: 'title matches first, then the most recently written' }),
  nextCursor: NextCursor,
});
