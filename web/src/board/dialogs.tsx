import { Plus } from 'lucide-react';
import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
import type { CardFace } from '../api.ts';
import { t } from '../strings.ts';
import { openedModal } from '../ui/topLayer.ts';
import type { ListView } from './store.ts';

/** A modal on the native <dialog>: focus kept inside, Escape closes, the page behind inert. */
export function Modal({ label, onClose, children, className }: { label: string; onClose: () => void; children: ReactNode; className?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    const closed = dialog ? openedModal(dialog) : undefined;
    return () => {
      closed?.();
      dialog?.close();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className={`modal ${className ?? ''}`}
      aria-label={label}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        if (event.target === ref.current) onClose();
      }}
    >
      {children}
    </dialog>
  );
}

export function MoveDialog({
  card,
  lists,
  onCancel,
  onMove,
}: {
  card: CardFace;
  lists: ListView[];
  onCancel: () => void;
  onMove: (listId: string, index: number) => void;
}) {
  const [listId, setListId] = useState(card.list);
  const target = lists.find((list) => list._id === listId);
  const current = target?.cards.findIndex((one) => one._id === card._id) ?? -1;
  const slots = (target?.cards.length ?? 0) + (current >= 0 ? 0 : 1);
  const [position, setPosition] = useState(Math.max(0, current));
  const id = useId();
  return (
    <Modal label={t.moveCardNamed(card.name)} onClose={onCancel}>
      <form
        className="move-form"
        onSubmit={(event) => {
          event.preventDefault();
          onMove(listId, Math.min(position, slots - 1));
        }}
      >
        <h2>{t.moveCard}</h2>
        <label htmlFor={`${id}-list`}>{t.list}</label>
        <select
          id={`${id}-list`}
          value={listId}
          onChange={(event) => {
            setListId(event.target.value);
            setPosition(0);
          }}
        >
          {lists.map((list) => (
            <option key={list._id} value={list._id}>
              {list.name}
            </option>
          ))}
        </select>
        <label htmlFor={`${id}-position`}>{t.position}</label>
        <select id={`${id}-position`} value={position} onChange={(event) => setPosition(Number(event.target.value))}>
          {Array.from({ length: Math.max(1, slots) }, (_, index) => (
            <option key={index} value={index}>
              {index + 1}
            </option>
          ))}
        </select>
        <div className="composer-actions">
          <button type="submit" className="primary">
            {t.moveButton}
          </button>
          <button type="button" onClick={onCancel}>
            {t.cancel}
          </button>
        </div>
      </form>
    </Modal>
  );
}

export function HelpDialog({ onClose }: { onClose: () => void }) {
  return (
    <Modal label={t.shortcuts} onClose={onClose}>
      <h2>{t.shortcuts}</h2>
      <dl className="shortcuts">
        {t.shortcutList.map(([key, what]) => (
          <div key={key}>
            <dt>
              <kbd>{key}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <button type="button" onClick={onClose} autoFocus>
        {t.close}
      </button>
    </Modal>
  );
}

/** What a board tool's dialog last said: a refusal (an alert) or what was done (a status). */
export type ToolMessage = { kind: 'error' | 'info'; text: string } | null;

/**
 * The frame of a board tool kept apart from the settings (the Rules page, recurring cards): its
 * title and Close, what it is for, its last word, then what it shows.
 */
export function ToolDialog(props: {
  label: string;
  title: string;
  closeLabel: string;
  intro: string;
  message: ToolMessage;
  onClose: () => void;
  children: ReactNode;
}) {
  return (
    <Modal label={props.label} onClose={props.onClose} className="board-settings rules-dialog">
      <div className="dialog-head">
        <h2 className="dialog-title">{props.title}</h2>
        <button type="button" className="close" onClick={props.onClose}>
          {props.closeLabel}
        </button>
      </div>
      <div className="settings-panel">
        <p className="muted">{props.intro}</p>
        {props.message ? (
          <p className={props.message.kind === 'error' ? 'error' : 'notice notice-info'} role={props.message.kind === 'error' ? 'alert' : 'status'}>
            {props.message.text}
          </p>
        ) : null}
        {props.children}
      </div>
    </Modal>
  );
}

/**
 * What a board tool's dialog shows of its items (rules, recurring cards): the editor of the one
 * being edited or the button that starts a new one, then the list in its states (refused, empty,
 * loading) and a row per item.
 */
export function ToolItems<T extends { _id: string }>(props: {
  /** The item being edited, 'new', or null (the list only). */
  editing: T | 'new' | null;
  editor: (editing: T | 'new') => ReactNode;
  newLabel: string;
  onNew: () => void;
  items: { data?: readonly T[] | undefined; isError: boolean; error: unknown };
  words: { title: string; none: string; loading: string; refused: (error: unknown) => string };
  row: (item: T) => ReactNode;
}) {
  const { items, words } = props;
  return (
    <>
      {props.editing ? (
        props.editor(props.editing)
      ) : (
        <button type="button" className="primary rules-new" onClick={props.onNew}>
          <Plus size={16} aria-hidden="true" />
          {props.newLabel}
        </button>
      )}
      {items.isError ? <p className="error">{words.refused(items.error)}</p> : null}
      {items.data?.length === 0 ? <p className="muted">{words.none}</p> : null}
      {!items.data && !items.isError ? <p className="muted">{words.loading}</p> : null}
      <ul className="rule-rows" aria-label={words.title}>
        {items.data?.map((item) => props.row(item))}
      </ul>
    </>
  );
}
