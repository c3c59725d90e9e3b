import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link } from 'react-router';
import { type Board, client, unwrap } from '../../api.ts';
import { deleteBoardConfirmed } from './BoardSettings.tsx';
import { settingsText as s } from './strings.ts';
import './settings.css';

/**
 * A team's archived boards on the boards page, each restorable (and, for the company's owners and
 * admins, deletable with the confirmation that names what goes with it). Closed at first; the
 * count comes from one read of the team's boards with the archived ones.
 */
export default function ArchivedBoards({ teamId, canDelete }: { teamId: string; canDelete: boolean }) {
  const queryClient = useQueryClient();
  const ids = useId();
  const [message, setMessage] = useState<{ kind: 'error' | 'info'; text: string } | null>(null);
  const boards = useQuery({
    queryKey: ['boards', teamId, 'archived'],
    queryFn: async () =>
      unwrap(await client.GET('/api/v1/boards', { params: { query: { teamId, archived: true } } })).boards.filter((board) => board.archived.status),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['boards', teamId] });
  const restore = useMutation({
    mutationFn: async (board: Board) => unwrap(await client.PATCH('/api/v1/boards/{boardId}/unarchive', { params: { path: { boardId: board._id } } })),
    onSuccess: async (_answer, board) => {
      setMessage({ kind: 'info', text: s.boardRestored(board.name) });
      await refresh();
    },
    onError: (caught) => setMessage({ kind: 'error', text: s.refused(caught instanceof Error ? caught.message : String(caught)) }),
  });
  async function remove(board: Board) {
    try {
      if (await deleteBoardConfirmed(queryClient, board._id)) {
        setMessage(null);
        await refresh();
      }
    } catch (caught) {
      setMessage({ kind: 'error', text: s.refused(caught instanceof Error ? caught.message : String(caught)) });
    }
  }
  const list = boards.data ?? [];
  return (
    <details className="archived-boards">
      <summary id={`${ids}-title`}>{s.archivedBoards(list.length)}</summary>
      {message ? (
        <p className={message.kind === 'error' ? 'error' : 'muted'} role={message.kind === 'error' ? 'alert' : 'status'}>
          {message.text}
        </p>
      ) : null}
      {list.length ? (
        <ul className="archived-rows" aria-labelledby={`${ids}-title`}>
          {list.map((board) => (
            <li key={board._id} className="archived-row">
              <Link to={`/boards/${board._id}`} className="archived-name">
                {board.name}
              </Link>
              <span className="spacer" />
              <button type="button" onClick={() => restore.mutate(board)} aria-label={s.restoreBoard(board.name)}>
                {s.restore}
              </button>
              {canDelete ? (
                <button type="button" onClick={() => void remove(board)} aria-label={s.deleteBoardNamed(board.name)}>
                  {s.delete}
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">{s.noArchivedBoards}</p>
      )}
    </details>
  );
}
