import { Type } from 'typebox';
import { Id, ScopeQuery, Timestamp } from './common.ts';
import { named } from './named.ts';

export const CalendarFeed = named(
  'CalendarFeed',
  Type.Object(
    {
      _id: Id,
      board: Type.Union([Id, Type.Null()], { description: "the board the feed shows; null: the caller's My Tasks" }),
      boardName: Type.Union([Type.String(), Type.Null()], { description: 'the name of that board, when it still exists' }),
      tokenPrefix: Type.String({ description: 'the first characters of the token, to tell feeds apart' }),
      createdAt: Timestamp,
      lastUsedAt: Type.Union([Timestamp, Type.Null()], { description: 'when a calendar app last read the feed' }),
    },
    { additionalProperties: false },
  ),
);

export const CalendarFeedParams = Type.Object({ feedId: Id }, { additionalProperties: false });

export const CreateCalendarFeedBody = Type.Object(
  { board: Type.Optional(Id) },
  { additionalProperties: false, description: "`board`: a feed of that board's dated cards; absent: of the caller's My Tasks" },
);

export const CreateCalendarFeedQuery = ScopeQuery;

export const IssuedCalendarFeedResponse = Type.Object({
  message: Type.String(),
  calendarFeed: CalendarFeed,
  url: Type.String({ description: 'the secret iCalendar URL to subscribe to; shown only in this answer' }),
});

export const CalendarFeedsResponse = Type.Object({
  message: Type.String(),
  calendarFeeds: Type.Array(CalendarFeed),
});
