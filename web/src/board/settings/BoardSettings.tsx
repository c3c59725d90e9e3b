import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useMemo, useState } from 'react';
import { type Board, type Card, type CardFace, client, type Label, unwrap } from '../../api.ts';
import { fieldsText } from '../../fields/strings.ts';
import { Modal } from '../dialogs.tsx';
import { textOn } from '../filters.ts';
import { type BoardActions, type BoardView, boardKey } from '../store.ts';
import { ExportPanel } from './ExportPanel.tsx';
import { FieldsPanel } from './FieldsPanel.tsx';
import { allCards, type Inventory, inventoryKey, inventoryQuery, readInventory } from './inventory.ts';
import { settingsText as s } from './strings.ts';
import './settings.css';

export type Panel = 'labels' | 'fields' | 'archive' | 'settings' | 'export';

type LabelColor = Label['color'];

const labelsKey = (boardId: string) => ['labels', boardId] as const;

const errorText = (error: unknown) => s.refused(error instanceof Error ? error.message : String(error));

/** The board menu's dialogs: labels, archived items, and the board's own settings. */
export default function BoardSettings(props: {
  panel: Panel;
  boardId: string;
  boardName: string;
  canDelete: boolean;
  actions: BoardActions;
  onClose: () => void;
  onDelete: () => void;
}) {
  const { panel, boardName } = props;
  const label = {
    labels: s.labelsOf(boardName),
    fields: fieldsText.customFieldsOf(boardName),
    archive: s.archivedOf(boardName),
    settings: s.settingsOf(boardName),
    export: s.exportOf(boardName),
  }[panel];
  const title = { labels: s.labels, fields: fieldsText.customFields, archive: s.archived, settings: s.settings, export: s.export }[panel];
  return (
    <Modal label={label} onClose={props.onClose} className="board-settings">
      <div className="dialog-head">
        <h2 className="dialog-title">{title}</h2>
        <button type="button" className="close" onClick={props.onClose}>
          {s.close}
        </button>
      </div>
      {panel === 'labels' ? <LabelsPanel boardId={props.boardId} /> : null}
      {panel === 'fields' ? <FieldsOfBoard boardId={props.boardId} /> : null}
      {panel === 'archive' ? <ArchivePanel boardId={props.boardId} actions={props.actions} /> : null}
      {panel === 'export' ? <ExportPanel boardId={props.boardId} /> : null}
      {panel === 'settings' ? <SettingsPanel boardId={props.boardId} canDelete={props.canDelete} onDelete={props.onDelete} /> : null}
    </Modal>
  );
}

function useLabelColors() {
  return useQuery({
    queryKey: ['label-colors'],
    queryFn: async () => unwrap(await client.GET('/api/v1/label-colors')).colors as LabelColor[],
    staleTime: Number.POSITIVE_INFINITY,
  });
}

function FieldsOfBoard({ boardId }: { boardId: string }) {
  const colours = useLabelColors();
  return <FieldsPanel boardId={boardId} colours={colours.data ?? []} />;
}

function useInventory(boardId: string) {
  const queryClient = useQueryClient();
  return useQuery(inventoryQuery(queryClient, boardId));
}

/** Something changed the board: its labels, its page and what the dialogs list are read again. */
function refreshBoard(queryClient: QueryClient, boardId: string) {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: labelsKey(boardId) }),
    queryClient.invalidateQueries({ queryKey: inventoryKey(boardId) }),
    queryClient.invalidateQueries({ queryKey: boardKey(boardId) }),
  ]);
}

/** The palette as radio buttons, each named by its colour and showing it. */
function ColourChoice({ colours, value, onChange, name }: { colours: LabelColor[]; value: string; onChange: (id: string) => void; name: string }) {
  return (
    <fieldset className="colour-choice">
      <legend>{s.colour}</legend>
      {colours.map((colour) => (
        <label key={colour._id} className="colour-option">
          <input type="radio" name={name} value={colour._id} checked={value === colour._id} onChange={() => onChange(colour._id)} />
          <span className="swatch" style={{ background: colour.hex }} aria-hidden="true" />
          {colour.name}
        </label>
      ))}
    </fieldset>
  );
}

function LabelsPanel({ boardId }: { boardId: string }) {
  const queryClient = useQueryClient();
  const labels = useQuery({
    queryKey: labelsKey(boardId),
    queryFn: async () => unwrap(await client.GET('/api/v1/boards/{boardId}/labels', { params: { path: { boardId } } })).labels as Label[],
  });
  const colours = useLabelColors();
  const inventory = useInventory(boardId);
  const view = queryClient.getQueryData<BoardView>(boardKey(boardId));
  const counts = useMemo(() => {
    const byLabel = new Map<string, number>();
    if (!inventory.data) return null;
    for (const card of allCards(inventory.data, view)) for (const id of card.labels) byLabel.set(id, (byLabel.get(id) ?? 0) + 1);
    return byLabel;
  }, [inventory.data, view]);
  const [editing, setEditing] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [colour, setColour] = useState('');
  const ids = useId();
  const palette = colours.data ?? [];
  const chosen = colour || palette[0]?._id || '';

  const create = useMutation({
    mutationFn: async (body: { name: string; color: string }) =>
      unwrap(await client.POST('/api/v1/boards/{boardId}/labels', { params: { path: { boardId } }, body })),
    onSuccess: () => {
      setName('');
      setError(null);
      return refreshBoard(queryClient, boardId);
    },
    onError: (caught) => setError(errorText(caught)),
  });
  const remove = useMutation({
    mutationFn: async (labelId: string) => unwrap(await client.DELETE('/api/v1/labels/{labelId}', { params: { path: { labelId } } })),
    onSuccess: () => refreshBoard(queryClient, boardId),
    onError: (caught) => setError(errorText(caught)),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) return setError(s.nameEmpty);
    create.mutate({ name: trimmed, color: chosen });
  }

  return (
    <div className="settings-panel">
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      {labels.data?.length === 0 ? <p className="muted">{s.noLabels}</p> : null}
      <ul className="label-rows" aria-label={s.labels}>
        {labels.data?.map((label) =>
          editing === label._id ? (
            <li key={label._id}>
              <LabelEditor
                label={label}
                colours={palette}
                onDone={() => setEditing(null)}
                onSaved={() => refreshBoard(queryClient, boardId)}
                onError={setError}
              />
            </li>
          ) : (
            <li key={label._id} className="label-row">
              <span className="label-chip" style={{ background: label.color.hex, color: textOn(label.color.hex) }}>
                {label.name || label.color.name}
              </span>
              <span className="muted">{counts ? s.cardsCarrying(counts.get(label._id) ?? 0) : s.loading}</span>
              <span className="spacer" />
              <button type="button" onClick={() => setEditing(label._id)} aria-label={s.editLabel(label.name || label.color.name)}>
                {s.edit}
              </button>
              <button
                type="button"
                disabled={!counts}
                aria-label={s.deleteLabel(label.name || label.color.name)}
                onClick={() => {
                  if (window.confirm(s.confirmDeleteLabel(label.name || label.color.name, counts?.get(label._id) ?? 0))) remove.mutate(label._id);
                }}
              >
                {s.delete}
              </button>
            </li>
          ),
        )}
      </ul>
      <form className="label-form" onSubmit={submit} aria-labelledby={`${ids}-new`}>
        <h3 id={`${ids}-new`}>{s.newLabel}</h3>
        <label>
          {s.labelName}
          <input value={name} onChange={(event) => setName(event.target.value)} maxLength={512} />
        </label>
        <ColourChoice colours={palette} value={chosen} onChange={setColour} name={`${ids}-colour`} />
        <div className="composer-actions">
          <button type="submit" className="primary" disabled={!chosen || create.isPending}>
            {s.createLabel}
          </button>
        </div>
      </form>
    </div>
  );
}

function LabelEditor(props: { label: Label; colours: LabelColor[]; onDone: () => void; onSaved: () => Promise<unknown>; onError: (text: string) => void }) {
  const { label } = props;
  const [name, setName] = useState(label.name);
  const [colour, setColour] = useState(label.color._id);
  const ids = useId();
  const save = useMutation({
    mutationFn: async (body: { name?: string; color?: string }) =>
      unwrap(await client.PATCH('/api/v1/labels/{labelId}', { params: { path: { labelId: label._id } }, body })),
    onSuccess: async () => {
      await props.onSaved();
      props.onDone();
    },
    onError: (caught) => props.onError(errorText(caught)),
  });
  return (
    <form
      className="label-form"
      aria-label={s.editLabel(label.name || label.color.name)}
      onSubmit={(event) => {
        event.preventDefault();
        const trimmed = name.trim();
        if (!trimmed) return props.onError(s.nameEmpty);
        const body = { ...(trimmed !== label.name ? { name: trimmed } : {}), ...(colour !== label.color._id ? { color: colour } : {}) };
        if (!Object.keys(body).length) return props.onDone();
        save.mutate(body);
      }}
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.preventDefault();
          event.stopPropagation();
          props.onDone();
        }
      }}
    >
      <label>
        {s.labelName}
        <input value={name} onChange={(event) => setName(event.target.value)} maxLength={512} autoFocus />
      </label>
      <ColourChoice colours={props.colours} value={colour} onChange={setColour} name={`${ids}-colour`} />
      <div className="composer-actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {s.save}
        </button>
        <button type="button" onClick={props.onDone}>
          {s.cancel}
        </button>
      </div>
    </form>
  );
}

function ArchivePanel({ boardId, actions }: { boardId: string; actions: BoardActions }) {
  const queryClient = useQueryClient();
  const inventory = useInventory(boardId);
  const [message, setMessage] = useState<{ kind: 'error' | 'info'; text: string } | null>(null);
  const ids = useId();
  const listsById = useMemo(() => new Map((inventory.data?.lists ?? []).map((list) => [list._id, list])), [inventory.data]);
  const done = async (text: string) => {
    setMessage({ kind: 'info', text });
    await refreshBoard(queryClient, boardId);
  };
  const failed = (caught: unknown) => setMessage({ kind: 'error', text: errorText(caught) });

  async function restoreCard(card: CardFace) {
    try {
      const answer = unwrap(await client.PATCH('/api/v1/cards/{cardId}/unarchive', { params: { path: { cardId: card._id } } }));
      actions.applyCard(answer.card as Card);
      await done(s.cardRestored(card.name));
    } catch (caught) {
      failed(caught);
    }
  }
  async function deleteCard(card: CardFace) {
    if (!window.confirm(s.confirmDeleteCard(card.name, card.commentsCount, card.attachmentsCount))) return;
    try {
      unwrap(await client.DELETE('/api/v1/cards/{cardId}', { params: { path: { cardId: card._id } } }));
      await done(s.cardDeleted(card.name));
    } catch (caught) {
      failed(caught);
    }
  }
  async function restoreList(listId: string, name: string) {
    try {
      unwrap(await client.PATCH('/api/v1/lists/{listId}/unarchive', { params: { path: { listId } } }));
      await done(s.listRestored(name));
    } catch (caught) {
      failed(caught);
    }
  }

  if (inventory.isError) return <p className="error">{errorText(inventory.error)}</p>;
  if (!inventory.data) return <p className="muted">{s.loading}</p>;
  const { archivedCards, archivedLists, cardsOfArchivedLists } = inventory.data;
  return (
    <div className="settings-panel">
      {message ? (
        <p className={message.kind === 'error' ? 'error' : 'notice notice-info'} role={message.kind === 'error' ? 'alert' : 'status'}>
          {message.text}
        </p>
      ) : null}
      <section aria-labelledby={`${ids}-cards`}>
        <h3 id={`${ids}-cards`}>{s.archivedCards}</h3>
        {archivedCards.length ? (
          <ul className="archived-rows" aria-labelledby={`${ids}-cards`}>
            {archivedCards.map((card) => {
              const list = listsById.get(card.list);
              return (
                <li key={card._id} className="archived-row">
                  <span className="archived-name">{card.name}</span>
                  <span className="muted">{s.inList(list?.name ?? '?', Boolean(list?.archived.status))}</span>
                  <span className="spacer" />
                  <button type="button" onClick={() => void restoreCard(card)} aria-label={s.restoreCard(card.name)}>
                    {s.restore}
                  </button>
                  <button type="button" onClick={() => void deleteCard(card)} aria-label={s.deleteCard(card.name)}>
                    {s.delete}
                  </button>
                </li>
              );
            })}
          </ul>
        ) : (
          <p className="muted">{s.noArchivedCards}</p>
        )}
      </section>
      <section aria-labelledby={`${ids}-lists`}>
        <h3 id={`${ids}-lists`}>{s.archivedLists}</h3>
        {archivedLists.length ? (
          <ul className="archived-rows" aria-labelledby={`${ids}-lists`}>
            {archivedLists.map((list) => (
              <li key={list._id} className="archived-row">
                <span className="archived-name">{list.name}</span>
                <span className="muted">{s.listCards(cardsOfArchivedLists.filter((card) => card.list === list._id).length)}</span>
                <span className="spacer" />
                <button type="button" onClick={() => void restoreList(list._id, list.name)} aria-label={s.restoreList(list.name)}>
                  {s.restore}
                </button>
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">{s.noArchivedLists}</p>
        )}
      </section>
    </div>
  );
}

function SettingsPanel({ boardId, canDelete, onDelete }: { boardId: string; canDelete: boolean; onDelete: () => void }) {
  const queryClient = useQueryClient();
  const view = queryClient.getQueryData<BoardView>(boardKey(boardId));
  const [name, setName] = useState(view?.board.name ?? '');
  const [description, setDescription] = useState(view?.board.description ?? '');
  const [message, setMessage] = useState<{ kind: 'error' | 'info'; text: string } | null>(null);
  const ids = useId();
  const save = useMutation({
    mutationFn: async (body: { name?: string; description?: string }) =>
      unwrap(await client.PATCH('/api/v1/boards/{boardId}', { params: { path: { boardId } }, body })).board as Board,
    onSuccess: async (board) => {
      setMessage({ kind: 'info', text: s.saved });
      queryClient.setQueryData<BoardView>(boardKey(boardId), (known) => (known ? { ...known, board: { ...known.board, ...board } } : known));
      await queryClient.invalidateQueries({ queryKey: ['boards', board.team] });
    },
    onError: (caught) => setMessage({ kind: 'error', text: errorText(caught) }),
  });
  return (
    <div className="settings-panel">
      <form
        className="board-form"
        onSubmit={(event) => {
          event.preventDefault();
          const trimmed = name.trim();
          if (!trimmed) return setMessage({ kind: 'error', text: s.nameEmpty });
          const board = queryClient.getQueryData<BoardView>(boardKey(boardId))?.board;
          const body = { ...(trimmed !== board?.name ? { name: trimmed } : {}), ...(description !== board?.description ? { description } : {}) };
          if (Object.keys(body).length) save.mutate(body);
        }}
      >
        <label>
          {s.boardName}
          <input value={name} onChange={(event) => setName(event.target.value)} maxLength={512} />
        </label>
        <label>
          {s.description}
          <textarea value={description} rows={3} onChange={(event) => setDescription(event.target.value)} />
        </label>
        {message ? (
          <p className={message.kind === 'error' ? 'error' : 'muted'} role={message.kind === 'error' ? 'alert' : 'status'}>
            {message.text}
          </p>
        ) : null}
        <div className="composer-actions">
          <button type="submit" className="primary" disabled={save.isPending}>
            {s.save}
          </button>
        </div>
      </form>
      {canDelete ? (
        <section className="danger" aria-labelledby={`${ids}-danger`}>
          <h3 id={`${ids}-danger`}>{s.dangerZone}</h3>
          <p className="muted">{s.deleteBoardHint}</p>
          <button type="button" className="danger-button" onClick={onDelete}>
            {s.deleteBoard}
          </button>
        </section>
      ) : null}
    </div>
  );
}

/**
 * Board deletion, confirmed with what goes with it: its lists (archived ones too) and all their
 * cards, counted from the board's inventory. True when the board was deleted.
 */
export async function deleteBoardConfirmed(queryClient: QueryClient, boardId: string): Promise<boolean> {
  const view = queryClient.getQueryData<BoardView>(boardKey(boardId));
  const inventory: Inventory = await queryClient.fetchQuery({ queryKey: inventoryKey(boardId), queryFn: ({ signal }) => readInventory(boardId, view, signal) });
  const cards = allCards(inventory, view).length;
  if (!window.confirm(s.confirmDeleteBoard(inventory.board.name, inventory.lists.length, cards))) return false;
  unwrap(await client.DELETE('/api/v1/boards/{boardId}', { params: { path: { boardId } } }));
  queryClient.removeQueries({ queryKey: boardKey(boardId) });
  queryClient.removeQueries({ queryKey: inventoryKey(boardId) });
  await queryClient.invalidateQueries({ queryKey: ['boards', inventory.board.team] });
  return true;
}
