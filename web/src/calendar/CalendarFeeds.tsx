import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '@taskboard/client';
import { useId, useState } from 'react';
import { client, unwrap } from '../api.ts';
import { Outcome, Part, ShownOnce, when } from '../parts.tsx';
import { calendarText as c } from './strings.ts';

type CalendarFeed = components['schemas']['CalendarFeed'];

const nameOf = (feed: CalendarFeed) => (feed.board === null ? c.feedMyTasks : feed.boardName ? c.feedBoard(feed.boardName) : c.feedGone);

/**
 * The account page's calendar feeds (docs/decisions/0212): a secret iCalendar link of My Tasks or of a
 * board, shown once to copy into a calendar app; the links made so far, each revocable.
 */
export function CalendarFeeds() {
  const queryClient = useQueryClient();
  const selectId = useId();
  const [fresh, setFresh] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['calendar-feeds'] });
  const feeds = useQuery({
    queryKey: ['calendar-feeds'],
    queryFn: async () => unwrap(await client.GET('/api/v1/calendar-feeds')).calendarFeeds,
  });
  const boards = useQuery({
    queryKey: ['boards', 'all'],
    queryFn: async () => unwrap(await client.GET('/api/v1/boards')).boards,
  });
  const create = useMutation({
    mutationFn: async (board: string) => unwrap(await client.POST('/api/v1/calendar-feeds', { body: board ? { board } : {} })),
    onSuccess: (answer) => setFresh(answer.url),
    onSettled: refresh,
  });
  const revoke = useMutation({
    mutationFn: async (feed: CalendarFeed) => {
      unwrap(await client.DELETE('/api/v1/calendar-feeds/{feedId}', { params: { path: { feedId: feed._id } } }));
      return feed;
    },
    onSuccess: (feed) => setDone(c.revoked(nameOf(feed))),
    onSettled: refresh,
  });
  const busy = create.isPending || revoke.isPending;
  return (
    <Part title={c.title}>
      <p className="muted">{c.intro}</p>
      {fresh ? <ShownOnce label={c.fresh} hint={c.freshHint} value={fresh} copied={c.copied} copyFailed={c.copyFailed} onDone={() => setFresh(null)} /> : null}
      <ul className="account-rows">
        {feeds.data?.map((feed) => (
          <li key={feed._id} className="account-row">
            <span className="account-row-text">
              <strong>{nameOf(feed)}</strong>
              <span className="muted"> {c.details(feed.tokenPrefix, when(feed.createdAt), feed.lastUsedAt ? when(feed.lastUsedAt) : null)}</span>
            </span>
            <button
              type="button"
              aria-label={c.revokeNamed(nameOf(feed))}
              disabled={busy}
              onClick={() => {
                if (window.confirm(c.confirmRevoke(nameOf(feed)))) revoke.mutate(feed);
              }}
            >
              {c.revoke}
            </button>
          </li>
        ))}
      </ul>
      {feeds.data?.length === 0 ? <p className="muted">{c.none}</p> : null}
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          const select = event.currentTarget.elements.namedItem('feed-of') as HTMLSelectElement;
          create.mutate(select.value);
        }}
      >
        <label htmlFor={selectId}>{c.of}</label>
        <select id={selectId} name="feed-of" defaultValue="">
          <option value="">{c.myTasks}</option>
          {boards.data?.map((board) => (
            <option key={board._id} value={board._id}>
              {c.board(board.name)}
            </option>
          ))}
        </select>
        <button type="submit" disabled={busy}>
          {c.create}
        </button>
      </form>
      <Outcome error={create.error ?? revoke.error ?? feeds.error} success={revoke.isSuccess ? done : null} />
    </Part>
  );
}
