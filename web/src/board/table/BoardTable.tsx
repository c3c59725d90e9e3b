import { useVirtualizer } from '@tanstack/react-virtual';
import { ArrowDown, ArrowLeft, ArrowRight, ArrowUp, Columns3 } from 'lucide-react';
import { type KeyboardEvent, memo, type ReactNode, type RefObject, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { type Card, type CardFace, client, ifMatch, type Label, type Member, unwrap } from '../../api.ts';
import { type CustomField, type FieldValue, valueText } from '../../fields/fields.ts';
import { formatDate } from '../../i18n/messages.ts';
import { Avatar } from '../../ui/Avatar.tsx';
import { Popover } from '../../ui/Menu.tsx';
import { textOn } from '../filters.ts';
import type { BoardActions, ListView } from '../store.ts';
import { tableText as tt } from './strings.ts';
import './table.css';
import { useUrlState, withParams } from '../useUrlState.ts';
import { fromLocalInput, toLocalInput } from './localInput.ts';

/** A card as a row: its face and the list it is in. */
export interface Row {
  card: CardFace;
  list: ListView;
}

type Sortable = string | number | null;
/** What a cell edits in place. */
type Editor = { kind: 'name' } | { kind: 'date'; key: 'startDate' | 'dueDate' } | { kind: 'field'; field: CustomField };

interface Column {
  id: string;
  title: string;
  width: number;
  sortValue: (row: Row) => Sortable;
  render: (row: Row) => ReactNode;
  editor?: Editor;
}

const ROW_HEIGHT = 40;
const FIXED = ['list', 'labels', 'members', 'startDate', 'dueDate', 'checklist'] as const;
const storageKey = (userId: string, boardId: string) => `taskboard.table.${userId}.${boardId}`;
const shortDate = (iso: string | null) => (iso ? formatDate(iso, { dateStyle: 'medium', timeStyle: 'short' }) : '');

/** The columns the person chose for this board: the URL's (a shared link) first, else those remembered in this browser, else all. */
function chosenColumns(fromUrl: string | null, userId: string, boardId: string, all: readonly string[]): string[] {
  const remembered = fromUrl ?? localStorage.getItem(storageKey(userId, boardId));
  if (remembered === null) return [...all];
  return remembered.split(',').filter((id) => all.includes(id));
}

/**
 * The board as a table: one row per card (the board's filters apply), columns for list, labels,
 * members, dates, checklist progress and each custom field; sort by a column, choose and order the
 * columns (remembered per person and board, and in the URL), edit a cell in place. Rows are
 * virtualised, so ten thousand cards scroll as smoothly as ten. A grid: arrow keys move between cells.
 */
export default function BoardTable(props: {
  boardId: string;
  boardName: string;
  rows: Row[];
  labelsById: ReadonlyMap<string, Label>;
  people: ReadonlyMap<string, Member>;
  members: Member[];
  fields: readonly CustomField[];
  userId: string;
  params: URLSearchParams;
  setParams: (next: URLSearchParams) => void;
  actions: BoardActions;
  openCard: (cardId: string) => void;
  onError: (error: unknown, cardId: string) => void;
  /** The board's lists (a bulk move's or copy's targets), and where the board is (the multi-team move names it). */
  lists: readonly ListView[];
  place: { companyId: string; teamId: string };
  /** A bulk operation's outcome, in words (an error is the refusal's message). */
  onBulkDone: (result: { ok: boolean; text: string }) => void;
  /** Reads the board again after a bulk operation. */
  onBulkChanged: () => Promise<unknown>;
}) {
  const { fields, people, labelsById } = props;
  const columns = useMemo<Column[]>(() => {
    const fixed: Record<(typeof FIXED)[number], Column> = {
      list: { id: 'list', title: tt.list, width: 150, sortValue: (row) => row.list.name.toLocaleLowerCase(), render: (row) => row.list.name },
      labels: {
        id: 'labels',
        title: tt.labels,
        width: 180,
        sortValue: (row) => row.card.labels.map((id) => labelsById.get(id)?.name ?? '').join(',') || null,
        render: (row) => (
          <span className="table-chips">
            {row.card.labels.flatMap((id) => {
              const label = labelsById.get(id);
              return label
                ? [
                    <span key={id} className="label-chip" style={{ background: label.color.hex, color: textOn(label.color.hex) }}>
                      {label.name || label.color.name}
                    </span>,
                  ]
                : [];
            })}
          </span>
        ),
      },
      members: {
        id: 'members',
        title: tt.members,
        width: 160,
        sortValue: (row) => row.card.members.map((member) => member.fullName).join(',') || null,
        render: (row) => (
          <span className="table-chips">
            {row.card.members.map((member) => (
              <Avatar key={member._id} person={member} />
            ))}
          </span>
        ),
      },
      startDate: {
        id: 'startDate',
        title: tt.startDate,
        width: 170,
        sortValue: (row) => row.card.startDate,
        render: (row) => shortDate(row.card.startDate),
        editor: { kind: 'date', key: 'startDate' },
      },
      dueDate: {
        id: 'dueDate',
        title: tt.dueDate,
        width: 170,
        sortValue: (row) => row.card.dueDate,
        render: (row) => shortDate(row.card.dueDate),
        editor: { kind: 'date', key: 'dueDate' },
      },
      checklist: {
        id: 'checklist',
        title: tt.checklist,
        width: 110,
        sortValue: (row) => (row.card.allChecklistItemsCount.total ? row.card.allChecklistItemsCount.completed / row.card.allChecklistItemsCount.total : null),
        render: (row) => {
          const { completed, total } = row.card.allChecklistItemsCount;
          return total ? <span title={tt.checklistDone(completed, total)}>{`${completed}/${total}`}</span> : '';
        },
      },
    };
    const fieldValue = (row: Row, field: CustomField) => row.card.customFields.find((one) => one.field === field._id)?.value;
    const ofFields = fields.map<Column>((field) => ({
      id: `field:${field._id}`,
      title: field.name,
      width: field.type === 'checkbox' ? 110 : 160,
      sortValue: (row) => {
        const value = fieldValue(row, field);
        if (value === undefined) return null;
        return typeof value === 'number' || field.type === 'date' ? (value as number | string) : valueText(field, value, people).toLocaleLowerCase();
      },
      render: (row) => {
        const value = fieldValue(row, field);
        return value === undefined ? '' : valueText(field, value, people);
      },
      ...(field.type === 'multiselect' ? {} : { editor: { kind: 'field', field } as Editor }),
    }));
    return [...FIXED.map((id) => fixed[id]), ...ofFields];
  }, [fields, people, labelsById]);

  const allIds = useMemo(() => columns.map((column) => column.id), [columns]);
  // The table's state lives in the URL, so a link shares it (../useUrlState.ts).
  const [current, setCurrent] = useUrlState(
    props.params,
    (params) => ({ cols: params.get('cols'), sort: params.get('sort') ?? '', descending: params.get('dir') === 'desc' }),
    (next, params) => withParams(params, { cols: next.cols, sort: next.sort, dir: next.descending ? 'desc' : null }),
    props.setParams,
  );
  const shownIds = chosenColumns(current.cols, props.userId, props.boardId, allIds);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const toggleSelected = (cardId: string) =>
    setSelected((known) => {
      const next = new Set(known);
      if (!next.delete(cardId)) next.add(cardId);
      return next;
    });
  const shownKey = shownIds.join(',');
  // one array while the columns stay, so rows that stay in view need not render again
  // biome-ignore lint/correctness/useExhaustiveDependencies: shownKey stands for shownIds
  const shown = useMemo<Column[]>(
    () => [
      { id: 'select', title: tt.select, width: 44, sortValue: () => null, render: () => null },
      {
        id: 'name',
        title: tt.name,
        width: 280,
        sortValue: (row: Row) => row.card.name.toLocaleLowerCase(),
        render: (row: Row) => row.card.name,
        editor: { kind: 'name' } as Editor,
      },
      ...shownIds.flatMap((id) => columns.find((column) => column.id === id) ?? []),
    ],
    [columns, shownKey],
  );
  const { sort, descending } = current;
  const sortColumn = shown.find((column) => column.id === sort && column.id !== 'select');

  const rows = useMemo(() => {
    if (!sortColumn) return props.rows;
    const keyed = props.rows.map((row) => ({ row, key: sortColumn.sortValue(row) }));
    keyed.sort((a, b) => {
      // cells without a value go last, whichever way
      if (a.key === null || b.key === null) return a.key === b.key ? 0 : a.key === null ? 1 : -1;
      const order = a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
      return descending ? -order : order;
    });
    return keyed.map((one) => one.row);
  }, [props.rows, sortColumn, descending]);

  const write = (change: Partial<typeof current>) => setCurrent({ ...current, ...change });
  function setColumns(ids: string[]) {
    localStorage.setItem(storageKey(props.userId, props.boardId), ids.join(','));
    write({ cols: ids.join(',') });
  }
  function sortBy(id: string) {
    write({ sort: id, descending: sort === id && !descending });
  }

  // the selected cards still shown (a card filtered out or gone meanwhile is not acted on)
  const chosen = useMemo(() => rows.filter((row) => selected.has(row.card._id)), [rows, selected]);
  const allSelected = rows.length > 0 && chosen.length === rows.length;
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  const [active, setActive] = useState({ row: 0, col: 0 });
  const [editing, setEditing] = useState<{ cardId: string; col: string } | null>(null);
  const focusWanted = useRef(false);
  const template = useMemo(() => shown.map((column) => `${column.width}px`).join(' '), [shown]);

  // the active cell takes the focus once it is rendered (a move may scroll it into view first)
  useEffect(() => {
    if (!focusWanted.current) return;
    const cell = scroller.current?.querySelector<HTMLElement>(`[data-cell="${active.row}:${active.col}"]`);
    if (cell) {
      focusWanted.current = false;
      cell.focus();
    }
  });

  const move = useCallback(
    (row: number, col: number) => {
      const next = { row: Math.max(-1, Math.min(rows.length - 1, row)), col: Math.max(0, Math.min(shown.length - 1, col)) };
      focusWanted.current = true;
      setActive(next);
      if (next.row >= 0) virtualizer.scrollToIndex(next.row, { align: 'auto' });
    },
    [rows.length, shown.length, virtualizer],
  );

  function onKeyDown(event: KeyboardEvent<HTMLElement>, row: number, col: number) {
    if (editing) return;
    const rtl = document.documentElement.dir === 'rtl';
    const next = cellAfter(event, row, col, rtl);
    if (next) {
      event.preventDefault();
      move(next.row, next.col);
      return;
    }
    if (row < 0) {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        if (shown[col]?.id === 'select') setSelected(selected.size === rows.length ? new Set() : new Set(rows.map((one) => one.card._id)));
        else sortBy(shown[col]!.id);
      }
      return;
    }
    const target = rows[row];
    const column = shown[col];
    if (!target || !column) return;
    if (column.id === 'select' && (event.key === ' ' || event.key === 'Enter')) {
      event.preventDefault();
      toggleSelected(target.card._id);
      return;
    }
    if (event.key === 'Enter' || event.key === 'F2') {
      event.preventDefault();
      if (column.editor && (event.key === 'F2' || column.id !== 'name')) setEditing({ cardId: target.card._id, col: column.id });
      else props.openCard(target.card._id);
    }
  }

  /** Where a key of the grid's moves takes the active cell, or nothing for any other key. */
  function cellAfter(event: KeyboardEvent<HTMLElement>, row: number, col: number, rtl: boolean): { row: number; col: number } | null {
    const forward = rtl ? -1 : 1;
    switch (event.key) {
      case 'ArrowDown':
        return { row: row + 1, col };
      case 'ArrowUp':
        return { row: row - 1, col };
      case 'ArrowRight':
        return { row, col: col + forward };
      case 'ArrowLeft':
        return { row, col: col - forward };
      case 'Home':
        return { row: event.ctrlKey ? 0 : row, col: 0 };
      case 'End':
        return { row: event.ctrlKey ? rows.length - 1 : row, col: shown.length - 1 };
      case 'PageDown':
        return { row: row + 10, col };
      case 'PageUp':
        return { row: row - 10, col };
      default:
        return null;
    }
  }

  async function save(row: Row, editor: Editor, value: unknown) {
    const { card } = row;
    try {
      const answer =
        editor.kind === 'field'
          ? unwrap(
              await client.PATCH('/api/v1/cards/{cardId}/custom-fields', {
                params: { path: { cardId: card._id }, header: ifMatch(card.__v) as never },
                body: { values: [{ field: editor.field._id, value: value as never }] },
              }),
            )
          : unwrap(
              await client.PATCH('/api/v1/cards/{cardId}', {
                params: { path: { cardId: card._id }, header: ifMatch(card.__v) as never },
                body: editor.kind === 'name' ? { name: value as string } : { [editor.key]: value as string | null },
              }),
            );
      props.actions.applyCard(answer.card as Card);
    } catch (error) {
      props.onError(error, card._id);
    }
  }

  // the rows' handlers through one ref: a memoised row keeps its props while the table around it re-renders
  const rowApi = useRef<RowApi>(null as unknown as RowApi);
  rowApi.current = {
    onKeyDown,
    focus: (row, col) => setActive({ row, col }),
    edit: (cardId, col) => setEditing({ cardId, col }),
    done: (row, editor, value) => {
      setEditing(null);
      focusWanted.current = true;
      if (value !== undefined) void save(row, editor, value);
    },
    toggle: toggleSelected,
    open: props.openCard,
    members: props.members,
  };

  const headerRow = (
    <div role="row" tabIndex={-1} aria-rowindex={1} className="table-row table-head" style={{ gridTemplateColumns: template }}>
      {shown.map((column, col) => {
        const sorted = sortColumn?.id === column.id ? (descending ? 'descending' : 'ascending') : undefined;
        return (
          <div
            key={column.id}
            role="columnheader"
            aria-colindex={col + 1}
            aria-sort={column.id === 'select' ? undefined : (sorted ?? 'none')}
            tabIndex={active.row === -1 && active.col === col ? 0 : -1}
            data-cell={`-1:${col}`}
            className="table-cell"
            onKeyDown={(event) => onKeyDown(event, -1, col)}
            onFocus={() => setActive({ row: -1, col })}
          >
            {column.id === 'select' ? (
              <input
                type="checkbox"
                tabIndex={-1}
                aria-label={tt.selectAll}
                checked={allSelected}
                onChange={(event) => setSelected(event.target.checked ? new Set(rows.map((row) => row.card._id)) : new Set())}
              />
            ) : (
              <button type="button" tabIndex={-1} className="sort-button" onClick={() => sortBy(column.id)} title={tt.sortBy(column.title)}>
                {column.title}
                {sorted === 'ascending' ? (
                  <ArrowUp size={14} aria-hidden="true" />
                ) : sorted === 'descending' ? (
                  <ArrowDown size={14} aria-hidden="true" />
                ) : null}
              </button>
            )}
          </div>
        );
      })}
    </div>
  );

  return (
    <div className="board-table">
      <div className="table-tools">
        <span className="muted" role="status">
          {tt.rows(rows.length)}
        </span>
        {chosen.length ? (
          <BulkBar
            count={chosen.length}
            lists={props.lists}
            onClear={() => setSelected(new Set())}
            run={async (operation, listId) => {
              const ids = chosen.map((row) => row.card._id);
              const place = props.place;
              try {
                if (operation === 'archive')
                  unwrap(await client.PATCH('/api/v1/cards/archived', { params: { query: { teamId: place.teamId } }, body: { cardIds: ids, status: true } }));
                else if (operation === 'copy')
                  unwrap(await client.PATCH('/api/v1/cards/copy', { params: { query: {} }, body: { cardIds: ids, list: listId ?? '' } }));
                else
                  unwrap(
                    await client.PATCH('/api/v1/cards/move-multi-team', {
                      body: { cards: ids.map((cardId) => ({ cardId, ...place })), target: { ...place, list: listId ?? '' } },
                    }),
                  );
                setSelected(new Set());
                await props.onBulkChanged();
                const listName = props.lists.find((list) => list._id === listId)?.name ?? '';
                props.onBulkDone({ ok: true, text: tt.bulkDone(operation, ids.length, listName) });
              } catch (error) {
                props.onBulkDone({ ok: false, text: error instanceof Error ? error.message : String(error) });
              }
            }}
          />
        ) : null}
        <ColumnChooser columns={columns} shownIds={shownIds} onChange={setColumns} />
      </div>
      <p id={`${props.boardId}-table-keys`} className="visually-hidden">
        {tt.keys}
      </p>
      <div
        ref={scroller}
        role="grid"
        aria-label={tt.cardsTable(props.boardName)}
        aria-describedby={`${props.boardId}-table-keys`}
        aria-rowcount={rows.length + 1}
        aria-colcount={shown.length}
        className="table-scroller"
      >
        {headerRow}
        <div role="rowgroup" style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index];
            if (!row) return null;
            return (
              <TableRow
                key={row.card._id}
                row={row}
                index={item.index}
                start={item.start}
                shown={shown}
                template={template}
                activeCol={active.row === item.index ? active.col : null}
                editingCol={editing?.cardId === row.card._id ? editing.col : null}
                selected={selected.has(row.card._id)}
                api={rowApi}
              />
            );
          })}
        </div>
      </div>
    </div>
  );
}

interface RowApi {
  onKeyDown: (event: KeyboardEvent<HTMLElement>, row: number, col: number) => void;
  focus: (row: number, col: number) => void;
  edit: (cardId: string, col: string) => void;
  done: (row: Row, editor: Editor, value: unknown) => void;
  toggle: (cardId: string) => void;
  open: (cardId: string) => void;
  members: Member[];
}

/** One card's row: re-rendered only when its card, its cells' state or the columns change, not on every scroll. */
const TableRow = memo(function TableRow(props: {
  row: Row;
  index: number;
  start: number;
  shown: Column[];
  template: string;
  activeCol: number | null;
  editingCol: string | null;
  selected: boolean;
  api: RefObject<RowApi>;
}) {
  const { row, index, api } = props;
  return (
    <div
      role="row"
      tabIndex={-1}
      aria-rowindex={index + 2}
      className="table-row"
      style={{ gridTemplateColumns: props.template, transform: `translateY(${props.start}px)`, height: ROW_HEIGHT }}
    >
      {props.shown.map((column, col) => {
        const isEditing = props.editingCol === column.id;
        return (
          <div
            key={column.id}
            role="gridcell"
            aria-colindex={col + 1}
            aria-selected={col === 0 ? props.selected : undefined}
            tabIndex={props.activeCol === col && !isEditing ? 0 : -1}
            data-cell={`${index}:${col}`}
            className={`table-cell${column.id === 'name' ? ' table-name' : ''}`}
            onKeyDown={(event) => api.current.onKeyDown(event, index, col)}
            onFocus={() => api.current.focus(index, col)}
            onDoubleClick={() => column.editor && api.current.edit(row.card._id, column.id)}
          >
            {isEditing && column.editor ? (
              <CellEditor
                row={row}
                editor={column.editor}
                label={tt.edit(column.title, row.card.name)}
                members={api.current.members}
                onDone={(value) => api.current.done(row, column.editor!, value)}
              />
            ) : column.id === 'select' ? (
              <input
                type="checkbox"
                tabIndex={-1}
                aria-label={tt.selectCard(row.card.name)}
                checked={props.selected}
                onChange={() => api.current.toggle(row.card._id)}
              />
            ) : column.id === 'name' ? (
              <button type="button" tabIndex={-1} className="table-open" onClick={() => api.current.open(row.card._id)}>
                {row.card.name}
              </button>
            ) : (
              column.render(row)
            )}
          </div>
        );
      })}
    </div>
  );
});

/** The cell's own control: Enter or leaving saves, Escape gives up (`undefined` means nothing changed). */
function CellEditor(props: { row: Row; editor: Editor; label: string; members: Member[]; onDone: (value: unknown) => void }) {
  const { row, editor } = props;
  const done = useRef(false);
  const finish = (value: unknown) => {
    if (done.current) return;
    done.current = true;
    props.onDone(value);
  };
  const keys = (event: KeyboardEvent<HTMLElement>, commit: () => void) => {
    event.stopPropagation();
    if (event.key === 'Escape') {
      event.preventDefault();
      finish(undefined);
    } else if (event.key === 'Enter') {
      event.preventDefault();
      commit();
    }
  };
  if (editor.kind === 'name') {
    return (
      <TextCell
        initial={row.card.name}
        label={props.label}
        onKeys={keys}
        onCommit={(text) => finish(text.trim() && text.trim() !== row.card.name ? text.trim() : undefined)}
      />
    );
  }
  if (editor.kind === 'date') {
    const initial = row.card[editor.key];
    return <DateCell initial={initial} label={props.label} onKeys={keys} onCommit={(value) => finish(value === initial ? undefined : value)} />;
  }
  const { field } = editor;
  const current = row.card.customFields.find((one) => one.field === field._id)?.value as FieldValue | undefined;
  if (field.type === 'checkbox') {
    return (
      <input
        type="checkbox"
        autoFocus
        aria-label={props.label}
        defaultChecked={current === true}
        onKeyDown={(event) => keys(event, () => finish((event.target as HTMLInputElement).checked ? true : null))}
        onChange={(event) => finish(event.target.checked ? true : null)}
        onBlur={() => finish(undefined)}
      />
    );
  }
  if (field.type === 'select' || field.type === 'person') {
    const choices =
      field.type === 'select'
        ? field.options.map((option) => ({ id: option._id, name: option.name }))
        : props.members.map((m) => ({ id: m._id, name: m.fullName }));
    return (
      <select
        autoFocus
        aria-label={props.label}
        defaultValue={typeof current === 'string' ? current : ''}
        onKeyDown={(event) => keys(event, () => finish((event.target as HTMLSelectElement).value || null))}
        onChange={(event) => finish(event.target.value || null)}
        onBlur={() => finish(undefined)}
      >
        <option value="">{tt.none}</option>
        {choices.map((choice) => (
          <option key={choice.id} value={choice.id}>
            {choice.name}
          </option>
        ))}
      </select>
    );
  }
  if (field.type === 'date') {
    const initial = typeof current === 'string' ? current : null;
    return <DateCell initial={initial} label={props.label} onKeys={keys} onCommit={(value) => finish(value === initial ? undefined : value)} />;
  }
  const initial = current === undefined ? '' : String(current);
  return (
    <TextCell
      initial={initial}
      label={props.label}
      onKeys={keys}
      onCommit={(text) => {
        const trimmed = text.trim();
        if (trimmed === initial) return finish(undefined);
        if (trimmed === '') return finish(null);
        if (field.type === 'number') {
          const number = Number(trimmed.replace(',', '.'));
          return finish(Number.isFinite(number) ? number : undefined);
        }
        finish(trimmed);
      }}
    />
  );
}

function TextCell(props: {
  initial: string;
  label: string;
  onKeys: (event: KeyboardEvent<HTMLElement>, commit: () => void) => void;
  onCommit: (text: string) => void;
}) {
  const [text, setText] = useState(props.initial);
  return (
    <input
      autoFocus
      aria-label={props.label}
      value={text}
      onChange={(event) => setText(event.target.value)}
      onKeyDown={(event) => props.onKeys(event, () => props.onCommit(text))}
      onBlur={() => props.onCommit(text)}
    />
  );
}

function DateCell(props: {
  initial: string | null;
  label: string;
  onKeys: (event: KeyboardEvent<HTMLElement>, commit: () => void) => void;
  onCommit: (value: string | null) => void;
}) {
  const [value, setValue] = useState(toLocalInput(props.initial));
  return (
    <input
      type="datetime-local"
      autoFocus
      aria-label={props.label}
      value={value}
      onChange={(event) => setValue(event.target.value)}
      onKeyDown={(event) => props.onKeys(event, () => props.onCommit(fromLocalInput(value)))}
      onBlur={() => props.onCommit(fromLocalInput(value))}
    />
  );
}

/** The columns to show, in order: a checkbox each, and moves left and right. */
function ColumnChooser(props: { columns: Column[]; shownIds: string[]; onChange: (ids: string[]) => void }) {
  const { shownIds } = props;
  // shown columns in their order, then the hidden ones in the default order
  const ordered = [
    ...shownIds.flatMap((id) => props.columns.find((column) => column.id === id) ?? []),
    ...props.columns.filter((column) => !shownIds.includes(column.id)),
  ];
  const moveBy = (id: string, step: number) => {
    const ids = [...shownIds];
    const at = ids.indexOf(id);
    const to = at + step;
    if (at < 0 || to < 0 || to >= ids.length) return;
    [ids[at], ids[to]] = [ids[to]!, ids[at]!];
    props.onChange(ids);
  };
  return (
    <Popover
      label={tt.chooseColumns}
      trigger={
        <>
          <Columns3 size={16} aria-hidden="true" className="trigger-icon" />
          {tt.columns}
        </>
      }
    >
      <fieldset className="column-chooser">
        <legend className="visually-hidden">{tt.chooseColumns}</legend>
        {ordered.map((column) => {
          const index = shownIds.indexOf(column.id);
          return (
            <div key={column.id} className="column-choice">
              <label className="check">
                <input
                  type="checkbox"
                  checked={index >= 0}
                  onChange={(event) => props.onChange(event.target.checked ? [...shownIds, column.id] : shownIds.filter((id) => id !== column.id))}
                />
                {column.title}
              </label>
              {index >= 0 ? (
                <span className="row-moves">
                  <button
                    type="button"
                    className="icon-button"
                    disabled={index === 0}
                    aria-label={tt.moveLeft(column.title)}
                    title={tt.moveLeft(column.title)}
                    onClick={() => moveBy(column.id, -1)}
                  >
                    <ArrowLeft size={14} aria-hidden="true" className="flip-rtl" />
                  </button>
                  <button
                    type="button"
                    className="icon-button"
                    disabled={index === shownIds.length - 1}
                    aria-label={tt.moveRight(column.title)}
                    title={tt.moveRight(column.title)}
                    onClick={() => moveBy(column.id, 1)}
                  >
                    <ArrowRight size={14} aria-hidden="true" className="flip-rtl" />
                  </button>
                </span>
              ) : null}
            </div>
          );
        })}
      </fieldset>
    </Popover>
  );
}

type BulkOperation = 'move' | 'copy' | 'archive';

/** What the selected cards can have done to them at once, each one request of the API's bulk operations. */
function BulkBar(props: { count: number; lists: readonly ListView[]; onClear: () => void; run: (operation: BulkOperation, listId?: string) => Promise<void> }) {
  const [listId, setListId] = useState(props.lists[0]?._id ?? '');
  const [busy, setBusy] = useState(false);
  const go = async (operation: BulkOperation) => {
    setBusy(true);
    try {
      await props.run(operation, listId);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="bulk-bar" role="group" aria-label={tt.selection}>
      <strong>{tt.selected(props.count)}</strong>
      <label>
        <span className="visually-hidden">{tt.targetList}</span>
        <select value={listId} onChange={(event) => setListId(event.target.value)} aria-label={tt.targetList}>
          {props.lists.map((list) => (
            <option key={list._id} value={list._id}>
              {list.name}
            </option>
          ))}
        </select>
      </label>
      <button type="button" disabled={busy || !listId} onClick={() => void go('move')}>
        {tt.moveTo}
      </button>
      <button type="button" disabled={busy || !listId} onClick={() => void go('copy')}>
        {tt.copyTo}
      </button>
      <button type="button" disabled={busy} onClick={() => void go('archive')}>
        {tt.archive}
      </button>
      <button type="button" disabled={busy} onClick={props.onClear}>
        {tt.clearSelection}
      </button>
    </div>
  );
}
