import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Plus } from 'lucide-react';
import { useId, useState } from 'react';
import { client, type Label, problem, unwrap } from '../api.ts';
import { t } from '../strings.ts';

type LabelColor = Label['color'];

/**
 * "Create a label" in the card's label picker, as in Trello: a name and a colour of the palette; the
 * new label is the board's, and goes on this card at once.
 */
export function NewLabel({ boardId, onCreated }: { boardId: string; onCreated: (label: Label) => Promise<unknown> }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [colour, setColour] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const ids = useId();
  const colours = useQuery({
    queryKey: ['label-colors'],
    queryFn: async () => unwrap(await client.GET('/api/v1/label-colors')).colors as LabelColor[],
    staleTime: Number.POSITIVE_INFINITY,
    enabled: open,
  });
  const palette = colours.data ?? [];
  const chosen = colour || palette[0]?._id || '';

  if (!open)
    return (
      <button type="button" className="label-chip new-label" onClick={() => setOpen(true)}>
        <Plus size={14} aria-hidden="true" />
        {t.createLabel}
      </button>
    );

  async function create() {
    const trimmed = name.trim();
    if (!trimmed) return setError(t.nameEmpty);
    setBusy(true);
    try {
      const { label } = unwrap(await client.POST('/api/v1/boards/{boardId}/labels', { params: { path: { boardId } }, body: { name: trimmed, color: chosen } }));
      await queryClient.invalidateQueries({ queryKey: ['labels', boardId] });
      await onCreated(label as Label);
      setName('');
      setError(null);
      setOpen(false);
    } catch (caught) {
      setError(t.refused(problem(caught)));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="new-label-form" role="group" aria-labelledby={`${ids}-title`}>
      <span id={`${ids}-title`} className="visually-hidden">
        {t.createLabel}
      </span>
      <label>
        {t.newLabelName}
        <input
          value={name}
          maxLength={512}
          autoFocus
          onChange={(event) => setName(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') {
              event.preventDefault();
              void create();
            }
            if (event.key === 'Escape') {
              event.preventDefault();
              event.stopPropagation();
              setOpen(false);
            }
          }}
        />
      </label>
      <fieldset className="colour-choice">
        <legend>{t.labelColour}</legend>
        {palette.map((one) => (
          <label key={one._id} className="colour-option">
            <input type="radio" name={`${ids}-colour`} value={one._id} checked={chosen === one._id} onChange={() => setColour(one._id)} />
            <span className="swatch" style={{ background: one.hex }} aria-hidden="true" />
            {one.name}
          </label>
        ))}
      </fieldset>
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
      <div className="composer-actions">
        <button type="button" className="primary" disabled={busy || !chosen} onClick={() => void create()}>
          {t.createLabelAction}
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          {t.cancel}
        </button>
      </div>
    </div>
  );
}
