import type { BoardEvent, Label, Member } from '../api.ts';
import { t } from '../strings.ts';
import { when } from './dates.ts';
import { nameOf, useActivity } from './queries.ts';

type Data = Record<string, unknown>;
const text = (value: unknown) => (typeof value === 'string' ? value : '');
const ids = (value: unknown) => (Array.isArray(value) ? value.filter((one): one is string => typeof one === 'string') : []);
/** An id out of a field that is either an id or a record carrying one. */
const idIn = (value: unknown) =>
  typeof value === 'string' ? value : value && typeof value === 'object' ? text((value as Data)._id ?? (value as Data).id) : '';

export interface Names {
  people: Map<string, Member>;
  lists: Map<string, string>;
  labels: Label[];
  meId: string | undefined;
}

/** What an event did to the card, in words, after the actor's name ("moved this card from Doing to Done"). */
export function describe(event: BoardEvent, names: Names): string {
  const data = event.data as Data;
  const list = (value: unknown) => names.lists.get(idIn(value)) ?? t.anotherList;
  const person = (id: string) => (id === names.meId ? t.you : nameOf(names.people, id));
  const label = (id: string) => {
    const found = names.labels.find((one) => one._id === id);
    return found ? found.name || found.color.name : t.aLabel;
  };
  const after = (data.after ?? {}) as Data;
  switch (event.type) {
    case 'card.created':
      return t.act.created(list(data.list));
    case 'card.copied':
      return t.act.copied(list(data.list));
    case 'card.moved': {
      const from = (data.from ?? {}) as Data;
      const to = (data.to ?? {}) as Data;
      return idIn(from.list) === idIn(to.list) ? t.act.movedWithin(list(to.list)) : t.act.moved(list(from.list), list(to.list));
    }
    case 'card.archived':
      return t.act.archived;
    case 'card.unarchived':
      return t.act.unarchived;
    case 'card.overdue':
      return t.act.overdue;
    case 'card.reminder':
      return t.act.reminder;
    case 'card.updated': {
      const fields = ids(data.fields);
      // The workload's value and unit are one change in words.
      const parts = [...new Set(fields.map((field) => (field.startsWith('workload.') ? 'workload' : field)))].map((field) => {
        if (field === 'name') return t.act.renamed(text(after.name));
        if (field === 'description') return t.act.description;
        if (field === 'dueDate') return after.dueDate ? t.act.due(when(text(after.dueDate))) : t.act.dueRemoved;
        if (field === 'startDate') return after.startDate ? t.act.start(when(text(after.startDate))) : t.act.startRemoved;
        if (field === 'complete.status') return after['complete.status'] ? t.act.complete : t.act.incomplete;
        if (field === 'complete.type') return t.act.completeType(text(after['complete.type']));
        if (field === 'isPublic') return after.isPublic ? t.act.public : t.act.private;
        if (field === 'cover') return after.cover ? t.act.cover : t.act.coverRemoved;
        if (field === 'workload') return t.act.workload;
        return t.act.changed(field);
      });
      return parts.length ? parts.join(t.act.and) : t.act.updated;
    }
    case 'card.labels.toggled':
      return (
        [...ids(data.added).map((id) => t.act.labelAdded(label(id))), ...ids(data.removed).map((id) => t.act.labelRemoved(label(id)))].join(t.act.and) ||
        t.act.labels
      );
    case 'card.members.toggled':
      return (
        [
          ...ids(data.added).map((id) => (id === event.actor?.user ? t.act.joined : t.act.memberAdded(person(id)))),
          ...ids(data.removed).map((id) => (id === event.actor?.user ? t.act.left : t.act.memberRemoved(person(id)))),
        ].join(t.act.and) || t.act.members
      );
    case 'comment.created':
      return t.act.commented;
    case 'comment.updated':
      return t.act.commentEdited;
    case 'comment.deleted':
      return t.act.commentDeleted;
    case 'discussion.created':
      return t.act.replied;
    case 'discussion.updated':
      return t.act.replyEdited;
    case 'discussion.deleted':
      return t.act.replyDeleted;
    case 'cheer.created':
      return t.act.cheered(text(data.content), text(data.on));
    case 'cheer.deleted':
      return t.act.uncheered(text(data.on));
    case 'attachment.created':
      return t.act.attached(text(data.name));
    case 'attachment.renamed':
      return t.act.attachmentRenamed(text(after.name));
    case 'attachment.deleted':
      return t.act.attachmentDeleted;
    default: {
      if (event.type.startsWith('checklist.item.')) return t.act.item(event.type.slice('checklist.item.'.length), text(data.name));
      if (event.type.startsWith('checklist.')) return t.act.checklist(event.type.slice('checklist.'.length), text(data.name));
      return event.type;
    }
  }
}

/** Changes of bookkeeping, not of the card as a person sees it, and what is one person's own (a watch, a notification). */
const QUIET = new Set(['card.seen', 'card.renumbered', 'card.watched', 'card.unwatched', 'notification.created']);

export function Activity(props: { cardId: string; names: Names }) {
  const activity = useActivity(props.cardId, true);
  const events = (activity.data?.pages.flatMap((page) => page.events) ?? []).filter((event) => !QUIET.has(event.type));
  return (
    <div className="activity">
      {activity.isPending ? <p className="muted">{t.loading}</p> : null}
      <ol className="activity-list">
        {events.map((event) => (
          <li key={event._id}>
            <span className="author">
              {event.actor ? (event.actor.user === props.names.meId ? t.you : nameOf(props.names.people, event.actor.user)) : t.product}
            </span>{' '}
            {describe(event, props.names)}{' '}
            <time className="muted" dateTime={event.createdAt}>
              {when(event.createdAt)}
            </time>
          </li>
        ))}
      </ol>
      {activity.hasNextPage ? (
        <button type="button" disabled={activity.isFetchingNextPage} onClick={() => void activity.fetchNextPage()}>
          {t.loadMoreActivity}
        </button>
      ) : null}
    </div>
  );
}
