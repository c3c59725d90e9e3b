import { useQuery } from '@tanstack/react-query';
import { Bell as BellIcon } from 'lucide-react';
import { Link } from 'react-router';
import { client, unwrap } from '../api.ts';
import { t } from '../strings.ts';
import { NOTIFICATIONS_KEY, useNotificationStream } from './live.ts';

/** How many unread notifications the bell counts exactly; past it, it shows "100+". */
const COUNTED = 100;

/** The caller's unread count: the first page of unread notifications (the API has no count of its own). */
export function useUnreadCount(enabled: boolean) {
  return useQuery({
    queryKey: [...NOTIFICATIONS_KEY, 'unread'],
    queryFn: async () => {
      const answer = unwrap(await client.GET('/api/v1/notifications', { params: { query: { unread: true, limit: COUNTED } } }));
      return { count: answer.notifications.length, more: answer.nextCursor !== null };
    },
    enabled,
  });
}

/** The header's bell: a link to the inbox named with the unread count, kept live by the notifications stream. */
export function Bell({ signedIn }: { signedIn: boolean }) {
  useNotificationStream(signedIn);
  const unread = useUnreadCount(signedIn);
  const count = unread.data?.count ?? 0;
  const shown = unread.data?.more ? `${count}+` : String(count);
  return (
    <Link to="/notifications" className="bell" aria-label={t.bellLabel(count, unread.data?.more ?? false)}>
      <BellIcon size={20} aria-hidden="true" />
      {count > 0 ? (
        <span className="bell-count" aria-hidden="true">
          {shown}
        </span>
      ) : null}
    </Link>
  );
}
