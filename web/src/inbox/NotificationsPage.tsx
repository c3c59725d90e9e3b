import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useId, useState } from 'react';
import { Link } from 'react-router';
import { client, unwrap } from '../api.ts';
import { formatDate } from '../i18n/messages.ts';
import { t } from '../strings.ts';
import { browserNotificationsExist, NOTIFICATIONS_KEY } from './live.ts';

type Notification = Awaited<ReturnType<typeof readPage>>['notifications'][number];

const PAGE = 30;

async function readPage(cursor: string | undefined) {
  return unwrap(await client.GET('/api/v1/notifications', { params: { query: cursor ? { limit: PAGE, cursor } : { limit: PAGE } } }));
}

/**
 * The inbox: the caller's notifications in words (who did what, on which card of which board, with a
 * snippet of what was written), newest first and grouped by card, a page at a time (the contract's
 * cursor); each opens its card at the comment or reply it is about.
 */
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
        {byCard(notifications).map((group) => (
          <CardGroup key={group[0]?._id} notifications={group} onRead={refresh} />
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

/** Marks where the card's and the board's names go in a sentence, to show them emphasised. */
const CARD_MARK = '\uE000';
const BOARD_MARK = '\uE001';

/** A notification in words: the sentence as text (for names) and with the card and board emphasised. */
function sentenceOf(notification: Notification): { text: string; shown: ReactNode[] } {
  const actor = notification.actorName ?? t.someone;
  const card = notification.cardName ?? t.cardGone;
  const board = notification.boardName ?? t.aBoard;
  const text = t.notificationWords(notification.type, actor, card, board, notification.reminder);
  const marked = t.notificationWords(notification.type, actor, CARD_MARK, BOARD_MARK, notification.reminder);
  const shown = marked
    .split(new RegExp(`([${CARD_MARK}${BOARD_MARK}])`))
    .map((part, index) => (part === CARD_MARK ? <em key={index}>{card}</em> : part === BOARD_MARK ? <em key={index}>{board}</em> : part));
  return { text, shown };
}

/** The notifications by card, each group where its newest notification falls (the list is newest first). */
function byCard(notifications: readonly Notification[]): Notification[][] {
  const groups = new Map<string, Notification[]>();
  for (const notification of notifications) {
    const key = notification.card ?? notification._id;
    const group = groups.get(key);
    if (group) group.push(notification);
    else groups.set(key, [notification]);
  }
  return [...groups.values()];
}

function CardGroup({ notifications, onRead }: { notifications: Notification[]; onRead: () => void }) {
  const id = useId();
  const [first] = notifications;
  if (!first) return null;
  const card = first.cardName ?? t.cardGone;
  return (
    <li className="inbox-group">
      <section aria-labelledby={`${id}-card`}>
        <h2 id={`${id}-card`} className="inbox-card">
          <span className="inbox-card-name">{card}</span>
          {first.boardName ? <span className="muted"> · {first.boardName}</span> : null}
        </h2>
        <ul aria-label={t.notificationsOfCard(card)}>
          {notifications.map((notification) => (
            <NotificationItem key={notification._id} notification={notification} onRead={onRead} />
          ))}
        </ul>
      </section>
    </li>
  );
}

function NotificationItem({ notification, onRead }: { notification: Notification; onRead: () => void }) {
  const markRead = useMutation({
    mutationFn: async () =>
      unwrap(await client.PATCH('/api/v1/notifications/{notificationId}/read', { params: { path: { notificationId: notification._id } } })),
    onSuccess: onRead,
  });
  const unread = notification.readAt === null;
  const { text, shown } = sentenceOf(notification);
  const when = formatDate(notification.createdAt, { year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
  // the exact comment or reply it is about, which the card dialog scrolls to and marks (`?item=`)
  const item = notification.discussion ?? notification.comment;
  const to = notification.board && notification.card ? `/boards/${notification.board}?card=${notification.card}${item ? `&item=${item}` : ''}` : undefined;
  const words = (
    <>
      <span className="inbox-words">{shown}</span>
      {notification.snippet ? <q className="inbox-snippet">{notification.snippet}</q> : null}
    </>
  );
  return (
    <li className={unread ? 'inbox-item unread' : 'inbox-item'}>
      {unread ? <span className="unread-dot">{t.unread}</span> : null}
      {to ? (
        <Link
          to={to}
          className="inbox-link"
          onClick={() => {
            if (unread) markRead.mutate();
          }}
        >
          {words}
        </Link>
      ) : (
        <span className="inbox-link">{words}</span>
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
