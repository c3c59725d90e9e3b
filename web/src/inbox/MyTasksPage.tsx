import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { ApiError, type Card, client, ifMatch, unwrap } from '../api.ts';
import { formatDate } from '../i18n/messages.ts';
import { t } from '../strings.ts';

const MY_TASKS_KEY = ['my-tasks'] as const;
const PAGE = 200;
/** Pages read at most: 2,000 cards, far past what a person is a member of; past it the page says so. */
const MAX_PAGES = 10;

/** Every card the caller is a member of, across teams (the API lists them in membership order, a page at a time). */
async function readMyTasks(): Promise<{ cards: Card[]; truncated: boolean }> {
  const cards: Card[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = unwrap(await client.GET('/api/v1/my-tasks', { params: { query: cursor ? { limit: PAGE, cursor } : { limit: PAGE } } }));
    cards.push(...(answer.cards as Card[]));
    if (!answer.nextCursor) return { cards, truncated: false };
    cursor = answer.nextCursor;
  }
  return { cards, truncated: true };
}

/** By due date, soonest first; cards without one after them, by name. */
export function byDueDate(a: Card, b: Card): number {
  if (a.dueDate !== b.dueDate) {
    if (a.dueDate === null) return 1;
    if (b.dueDate === null) return -1;
    return Date.parse(a.dueDate) - Date.parse(b.dueDate);
  }
  return a.name.localeCompare(b.name);
}

/** My Tasks: the caller's cards across teams by due date, each completed or reopened in place. */
export function MyTasksPage() {
  const tasks = useQuery({ queryKey: MY_TASKS_KEY, queryFn: readMyTasks });
  const cards = tasks.data ? [...tasks.data.cards].sort(byDueDate) : [];
  return (
    <div className="my-tasks page-pad">
      <h1>{t.myTasks}</h1>
      {tasks.isPending ? <p>{t.loading}</p> : null}
      {tasks.error ? (
        <p role="alert" className="error">
          {tasks.error.message}
        </p>
      ) : null}
      {tasks.data && cards.length === 0 ? <p className="muted">{t.noTasks}</p> : null}
      {tasks.data?.truncated ? <p className="muted">{t.tasksTruncated(cards.length)}</p> : null}
      <ul className="task-list" aria-label={t.myTasks}>
        {cards.map((card) => (
          <TaskRow key={card._id} card={card} />
        ))}
      </ul>
    </div>
  );
}

function TaskRow({ card }: { card: Card }) {
  const queryClient = useQueryClient();
  // The box shows the person's choice at once; the saved card replaces it, or it falls back when refused.
  const [choice, setChoice] = useState<boolean | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const replace = (next: Card) =>
    queryClient.setQueryData<{ cards: Card[]; truncated: boolean }>(MY_TASKS_KEY, (data) =>
      data ? { ...data, cards: data.cards.map((one) => (one._id === next._id ? next : one)) } : data,
    );

  async function toggle(status: boolean) {
    setChoice(status);
    setProblem(null);
    try {
      // Conditional on the revision shown, so a change made elsewhere meanwhile is not overwritten unseen.
      const answer = unwrap(
        await client.PATCH('/api/v1/cards/{cardId}', {
          params: { path: { cardId: card._id }, header: ifMatch(card.__v) as never },
          body: { complete: { status } },
        }),
      );
      replace(answer.card as Card);
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 412) {
        // Show the card as it is now; the person decides again on what they see.
        setProblem(t.taskChangedMeanwhile);
        void queryClient.invalidateQueries({ queryKey: MY_TASKS_KEY });
      } else setProblem(t.refused(caught instanceof Error ? caught.message : String(caught)));
    } finally {
      setChoice(null);
    }
  }

  const due = card.dueDate ? new Date(card.dueDate) : null;
  const overdue = due !== null && !card.complete.status && due.getTime() < Date.now();
  return (
    <li className={card.complete.status ? 'task done' : 'task'}>
      <input
        type="checkbox"
        checked={choice ?? card.complete.status}
        disabled={choice !== null}
        onChange={(event) => void toggle(event.target.checked)}
        aria-label={t.completeNamed(card.name)}
      />
      <Link to={`/boards/${card.board}?card=${card._id}`}>{card.name}</Link>
      <span className={overdue ? 'task-due overdue' : 'task-due muted'}>
        {due ? (
          <time dateTime={card.dueDate ?? undefined}>
            {formatDate(due, { year: 'numeric', month: 'numeric', day: 'numeric' })}
            {overdue ? ` (${t.dueOverdue})` : ''}
          </time>
        ) : (
          t.noDueDate
        )}
      </span>
      {problem ? (
        <span role="alert" className="error">
          {problem}
        </span>
      ) : null}
    </li>
  );
}
