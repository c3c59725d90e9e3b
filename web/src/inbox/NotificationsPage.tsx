import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { type Card, client, unwrap } from '../api.ts';
import { cardKey } from '../board/store.ts';
import { formatDate } from '../i18n/messages.ts';
import { t } from '../strings.ts';
import { browserNotificationsExist, NOTIFICATIONS_KEY } from './live.ts';

type Notification = Awaited<ReturnType<typeof readPage>>['notifications'][number];

const PAGE = 30;

async function readPage(cursor: string | undefined) {
  return unwrap(await client.GET('/api/v1/notifications', { params: { query: cursor ? { limit: PAGE, cursor } : { limit: PAGE } } }));
}

/** The inbox: the caller's notifications, newest first, a page at a time (the contract's cursor). */
export function NotificationsPage() {
  const queryClient = useQueryClient();
  const pages = useInfiniteQuery({
    queryKey: [...NOTIFICATIONS_KEY, 'inbox'],
    queryFn: ({ pageParam }) => readPage(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: NOTIFICATIONS_KEY });
  const readAll = useMutation({
    mutationFn: async () => unwrap(await client.PATCH('/api/v1/notifications/read-all')),
    onSuccess: refresh,
  });
  const notifications = pages.data?.pages.flatMap((page) => page.notifications) ?? [];
  const anyUnread = notifications.some((notification) => notification.readAt === null);
  return (
    <div className="inbox page-pad">
      <div className="inbox-header">
        <h1>{t.notifications}</h1>
        <button type="button" onClick={() => readAll.mutate()} disabled={!anyUnread || readAll.isPending}>
          {t.markAllRead}
        </button>
      </div>
      <BrowserNotificationsChoice />
      {readAll.error ? (
        <p role="alert" className="error">
          {readAll.error.message}
        </p>
      ) : null}
      {pages.isPending ? <p>{t.loading}</p> : null}
      {pages.error ? (
        <p role="alert" className="error">
          {pages.error.message}
        </p>
      ) : null}
      {pages.data && notifications.length === 0 ? <p className="muted">{t.noNotifications}</p> : null}
      <ul className="inbox-list" aria-label={t.notifications}>
        {notifications.map((notification) => (
          <NotificationItem key={notification._id} notification={notification} onRead={refresh} />
        ))}
      </ul>
      {pages.hasNextPage ? (
        <button type="button" onClick={() => void pages.fetchNextPage()} disabled={pages.isFetchingNextPage}>
          {t.loadMore}
        </button>
      ) : null}
    </div>
  );
}

/** Offers the browser's own notifications while the person has not decided; the browser keeps the answer. */
function BrowserNotificationsChoice() {
  const [permission, setPermission] = useState(() => (browserNotificationsExist() ? Notification.permission : 'denied'));
  if (permission !== 'default') return null;
  return (
    <p>
      <button type="button" onClick={() => void Notification.requestPermission().then(setPermission)}>
        {t.turnOnBrowserNotifications}
      </button>
    </p>
  );
}

function NotificationItem({ notification, onRead }: { notification: Notification; onRead: () => void }) {
  const cardId = notification.card;
  // The notification names its card only by id: the card (cached per card, shared with the card dialog) gives its name and board.
  const card = useQuery({
    queryKey: cardKey(cardId ?? ''),
    queryFn: async () => unwrap(await client.GET('/api/v1/cards/{cardId}', { params: { path: { cardId: cardId as string } } })).card as Card,
    enabled: cardId !== null,
    retry: false,
    staleTime: 60_000,
  });
  const markRead = useMutation({
    mutationFn: async () =>
      unwrap(await client.PATCH('/api/v1/notifications/{notificationId}/read', { params: { path: { notificationId: notification._id } } })),
    onSuccess: onRead,
  });
  const unread = notification.readAt === null;
  const cardName = card.data?.name ?? (card.isError ? t.cardGone : '…');
  const text = t.notificationText(notification.type, cardName);
  const when = formatDate(notification.createdAt, { year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
  return (
    <li className={unread ? 'inbox-item unread' : 'inbox-item'}>
      {unread ? <span className="unread-dot">{t.unread}</span> : null}
      {card.data ? (
        <Link
          to={`/boards/${card.data.board}?card=${card.data._id}`}
          onClick={() => {
            if (unread) markRead.mutate();
          }}
        >
          {text}
        </Link>
      ) : (
        <span>{text}</span>
      )}
      <time dateTime={notification.createdAt} className="muted">
        {when}
      </time>
      {unread ? (
        <button type="button" onClick={() => markRead.mutate()} disabled={markRead.isPending} aria-label={t.markReadNamed(text)}>
          {t.markRead}
        </button>
      ) : null}
    </li>
  );
}
