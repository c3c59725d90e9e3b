import { combine } from '@atlaskit/pragmatic-drag-and-drop/combine';
import { draggable, dropTargetForElements, monitorForElements } from '@atlaskit/pragmatic-drag-and-drop/element/adapter';
import { endOfMonth, endOfWeek, startOfMonth, startOfWeek, today } from '@internationalized/date';
import { CheckCircle2, ChevronLeft, ChevronRight } from 'lucide-react';
import { type KeyboardEvent, memo, type RefObject, useEffect, useMemo, useRef, useState } from 'react';
import type { CardFace, Label } from '../../api.ts';
import { END_OF_DAY, START_OF_DAY } from '../../card/dates.ts';
import { currentLocale, currentTimeZone, formatDate } from '../../i18n/messages.ts';
import type { BoardActions, ListView } from '../store.ts';
import { addDays, calendarDay, type DateKey, type DatesChange, datesOnDay, dayOf, daysBetween, isDay } from '../views/days.ts';
import { viewsText as vt } from '../views/strings.ts';
import '../views/views.css';
import { useUrlState, withParams } from '../useUrlState.ts';

/** A card as the views see it: its face and its list. */
export interface Row {
  card: CardFace;
  list: ListView;
}
type Range = 'month' | 'week';

/** How many cards a day of the month shows before "N more". */
const SHOWN_IN_MONTH = 3;
/** How many cards without a date the side list shows at first (a big board has thousands). */
const UNDATED_SHOWN = 50;

const dayWords = (day: string, options: Intl.DateTimeFormatOptions) => formatDate(`${day}T12:00:00Z`, { ...options, timeZone: 'UTC' });

/**
 * The board as a calendar: a month or a week of days, each with the cards due (or starting) that
 * day under the board's filters; a card dragged to another day, or moved there by keyboard, gets
 * that day at its time of day. The cards without that date wait in a side list, to be dragged in.
 * The days are a grid (arrow keys between days); its state is in the URL, so a link shares it.
 */
export default function BoardCalendar(props: {
  boardName: string;
  rows: Row[];
  labelsById: ReadonlyMap<string, Label>;
  params: URLSearchParams;
  setParams: (next: URLSearchParams) => void;
  actions: BoardActions;
  openCard: (cardId: string) => void;
}) {
  const zone = currentTimeZone();
  const locale = currentLocale();
  const todayKey = today(zone).toString();
  // the view's state lives in the URL, as the table's (../useUrlState.ts)
  const [current, setCurrent] = useUrlState(
    props.params,
    (params) => {
      const date = params.get('date');
      return {
        range: (params.get('range') === 'week' ? 'week' : 'month') as Range,
        by: (params.get('by') === 'start' ? 'startDate' : 'dueDate') as DateKey,
        day: isDay(date) ? date : todayKey,
      };
    },
    (next, params) =>
      withParams(params, {
        range: next.range === 'week' ? 'week' : null,
        by: next.by === 'startDate' ? 'start' : null,
        date: next.day === todayKey ? null : next.day,
      }),
    props.setParams,
  );
  const { range, by, day: anchor } = current;
  const write = (change: Partial<typeof current>) => setCurrent({ ...current, ...change });

  // the days shown: whole weeks around the month, or the week, starting on the locale's first weekday
  const days = useMemo(() => {
    const focus = calendarDay(anchor);
    const first = range === 'month' ? startOfWeek(startOfMonth(focus), locale) : startOfWeek(focus, locale);
    const last = range === 'month' ? endOfWeek(endOfMonth(focus), locale) : endOfWeek(focus, locale);
    const count = daysBetween(first.toString(), last.toString()) + 1;
    return Array.from({ length: count }, (_, index) => first.add({ days: index }).toString());
  }, [anchor, range, locale]);
  const weeks = useMemo(() => Array.from({ length: days.length / 7 }, (_, week) => days.slice(week * 7, week * 7 + 7)), [days]);
  const month = anchor.slice(0, 7);
  // the day with the grid's tab stop: the anchor's until the person moves; a step out of the days shown moves the anchor
  const [activeDay, setActiveDay] = useState(anchor);
  const focusDay = days.includes(activeDay) ? activeDay : anchor;

  // the cards by day of the shown date, in time order; those without it aside
  const { byDay, undated } = useMemo(() => {
    const byDay = new Map<string, Row[]>();
    const undated: Row[] = [];
    for (const row of props.rows) {
      const value = row.card[by];
      if (!value) {
        undated.push(row);
        continue;
      }
      const key = dayOf(value, zone);
      const rows = byDay.get(key);
      if (rows) rows.push(row);
      else byDay.set(key, [row]);
    }
    for (const rows of byDay.values())
      rows.sort((a, b) => Date.parse(a.card[by] ?? '') - Date.parse(b.card[by] ?? '') || a.card.name.localeCompare(b.card.name));
    return { byDay, undated };
  }, [props.rows, by, zone]);

  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [undatedShown, setUndatedShown] = useState(UNDATED_SHOWN);
  /** A card picked up by keyboard ("Move to date"): the arrow keys choose its day, Enter drops it. */
  const [moving, setMoving] = useState<Row | null>(null);
  const grid = useRef<HTMLDivElement>(null);
  const focusWanted = useRef(false);

  // the focused day takes the focus once rendered (a move may have changed the month first)
  useEffect(() => {
    if (!focusWanted.current) return;
    const cell = grid.current?.querySelector<HTMLElement>(`[data-day="${focusDay}"]`);
    if (cell) {
      focusWanted.current = false;
      cell.focus();
    }
  });

  // a card moved a day by keyboard keeps the focus in its new day, so the next key moves it again
  const cardFocusWanted = useRef<string | null>(null);
  useEffect(() => {
    const id = cardFocusWanted.current;
    if (!id) return;
    const active = document.activeElement;
    if (active && active !== document.body && !grid.current?.contains(active)) return void (cardFocusWanted.current = null);
    const card = grid.current?.querySelector<HTMLElement>(`[data-card-id="${id}"]`);
    if (card) {
      cardFocusWanted.current = null;
      if (card !== active) card.focus();
    }
  });

  const goTo = (day: string, focus = true) => {
    focusWanted.current = focus;
    setActiveDay(day);
    if (!days.includes(day) || !focus) write({ day });
  };

  /** The card given a day: the shown date goes there at its time of day, and says so. */
  const drop = (row: Row, day: string | null) => {
    const change: DatesChange = day ? datesOnDay(row.card, by, day, zone, by === 'dueDate' ? END_OF_DAY : START_OF_DAY) : { [by]: null };
    if (!Object.keys(change).length || (day === null && !row.card[by])) return;
    const words = day
      ? { done: vt.rescheduled(row.card.name, dayWords(day, { dateStyle: 'full' })), undone: vt.putBack(row.card.name) }
      : { done: vt.dateRemoved(row.card.name), undone: vt.putBack(row.card.name) };
    void props.actions.rescheduleCard(row.card._id, change, words);
  };
  const rowsById = useMemo(() => new Map(props.rows.map((row) => [row.card._id, row])), [props.rows]);
  const dropRef = useRef(drop);
  dropRef.current = drop;

  // a card dropped by mouse on a day (or on the side list, which takes its date away)
  useEffect(
    () =>
      monitorForElements({
        canMonitor: ({ source }) => source.data.type === 'calendar-card',
        onDrop({ source, location }) {
          const target = location.current.dropTargets[0];
          const row = rowsById.get(source.data.cardId as string);
          if (!target || !row) return;
          if (target.data.type === 'calendar-day') dropRef.current(row, target.data.day as string);
          else if (target.data.type === 'calendar-undated') dropRef.current(row, null);
        },
      }),
    [rowsById],
  );

  function onDayKey(event: KeyboardEvent<HTMLElement>, day: string) {
    if (event.target !== event.currentTarget) return;
    const forward = document.documentElement.dir === 'rtl' ? -1 : 1;
    const step: Record<string, number> = {
      ArrowRight: forward,
      ArrowLeft: -forward,
      ArrowDown: 7,
      ArrowUp: -7,
    };
    const index = days.indexOf(day) % 7;
    if (event.key in step) {
      event.preventDefault();
      return goTo(addDays(day, step[event.key]!));
    }
    if (event.key === 'Home' || event.key === 'End') {
      event.preventDefault();
      return goTo(addDays(day, event.key === 'Home' ? -index : 6 - index));
    }
    if (event.key === 'PageUp' || event.key === 'PageDown') {
      event.preventDefault();
      const sign = event.key === 'PageUp' ? -1 : 1;
      return goTo(range === 'month' ? calendarDay(day).add({ months: sign }).toString() : addDays(day, 7 * sign));
    }
    if (moving && (event.key === 'Enter' || event.key === ' ')) {
      event.preventDefault();
      drop(moving, day);
      setMoving(null);
      return;
    }
    if (event.key === 'Escape' && moving) {
      event.preventDefault();
      setMoving(null);
      return;
    }
    if (event.key === 'Enter') {
      // into the day: its first card
      event.preventDefault();
      event.currentTarget.querySelector<HTMLElement>('[data-card-id]')?.focus();
    }
  }

  function onCardKey(event: KeyboardEvent<HTMLElement>, row: Row, day: string | null) {
    if (event.target !== event.currentTarget || event.altKey || event.ctrlKey || event.metaKey) return;
    const siblings = () => [...(event.currentTarget.closest('[data-cards]')?.querySelectorAll<HTMLElement>('[data-card-id]') ?? [])];
    switch (event.key) {
      case 'Enter':
        event.preventDefault();
        props.openCard(row.card._id);
        return;
      case 'm':
      case 'M':
        event.preventDefault();
        setMoving(row);
        goTo(day ?? focusDay);
        return;
      case ',':
      case '.':
        if (!day) return;
        event.preventDefault();
        cardFocusWanted.current = row.card._id;
        drop(row, addDays(day, event.key === ',' ? -1 : 1));
        return;
      case 'ArrowDown':
      case 'ArrowUp': {
        event.preventDefault();
        const all = siblings();
        all[all.indexOf(event.currentTarget) + (event.key === 'ArrowDown' ? 1 : -1)]?.focus();
        return;
      }
      case 'Escape':
        if (!day) return;
        event.preventDefault();
        goTo(day);
        return;
      default:
        if (event.key.startsWith('Arrow')) event.preventDefault();
    }
  }

  const cardApi = useRef({ onKey: onCardKey, open: props.openCard });
  cardApi.current = { onKey: onCardKey, open: props.openCard };

  const first = days[0] ?? focusDay;
  const last = days[days.length - 1] ?? focusDay;
  const title =
    range === 'month'
      ? dayWords(`${month}-01`, { month: 'long', year: 'numeric' })
      : vt.weekOf(dayWords(first, { dateStyle: 'medium' }), dayWords(last, { dateStyle: 'medium' }));
  const step = (sign: number) => goTo(range === 'month' ? calendarDay(anchor).add({ months: sign }).toString() : addDays(anchor, 7 * sign), false);

  return (
    <div className="board-view calendar-view">
      <div className="view-tools">
        <button type="button" onClick={() => goTo(todayKey, false)}>
          {vt.today}
        </button>
        <span className="view-steps">
          <button type="button" className="icon-button" aria-label={range === 'month' ? vt.previousMonth : vt.previousWeek} onClick={() => step(-1)}>
            <ChevronLeft size={18} aria-hidden="true" className="flip-rtl" />
          </button>
          <button type="button" className="icon-button" aria-label={range === 'month' ? vt.nextMonth : vt.nextWeek} onClick={() => step(1)}>
            <ChevronRight size={18} aria-hidden="true" className="flip-rtl" />
          </button>
        </span>
        <h2 className="view-title" aria-live="polite">
          {title}
        </h2>
        <div className="segmented" role="group" aria-label={vt.range}>
          <button type="button" aria-pressed={range === 'month'} onClick={() => write({ range: 'month' })}>
            {vt.month}
          </button>
          <button type="button" aria-pressed={range === 'week'} onClick={() => write({ range: 'week' })}>
            {vt.week}
          </button>
        </div>
        <label className="view-choice">
          <span>{vt.showBy}</span>
          <select value={by} onChange={(event) => write({ by: event.target.value as DateKey })}>
            <option value="dueDate">{vt.dueDate}</option>
            <option value="startDate">{vt.startDate}</option>
          </select>
        </label>
      </div>
      {moving ? (
        <p className="moving-banner" role="status">
          {vt.movingHint(moving.card.name)}
        </p>
      ) : null}
      <p id="calendar-keys" className="visually-hidden">
        {vt.calendarKeys}
      </p>
      <div className="calendar-body">
        <div
          ref={grid}
          role="grid"
          aria-label={vt.calendarOf(props.boardName, title)}
          aria-describedby="calendar-keys"
          className={`calendar-grid calendar-range-${range}`}
        >
          <div role="row" tabIndex={-1} className="calendar-weekdays">
            {(weeks[0] ?? []).map((day) => (
              <div role="columnheader" tabIndex={-1} key={day} className="calendar-weekday">
                <abbr title={dayWords(day, { weekday: 'long' })}>{dayWords(day, { weekday: 'short' })}</abbr>
              </div>
            ))}
          </div>
          {weeks.map((week) => (
            <div role="row" tabIndex={-1} key={week[0]} className="calendar-week">
              {week.map((day) => {
                const rows = byDay.get(day) ?? [];
                const open = range === 'week' || expanded.has(day) || rows.length <= SHOWN_IN_MONTH + 1;
                return (
                  <Day
                    key={day}
                    day={day}
                    rows={open ? rows : rows.slice(0, SHOWN_IN_MONTH)}
                    hidden={open ? 0 : rows.length - SHOWN_IN_MONTH}
                    total={rows.length}
                    outside={range === 'month' && day.slice(0, 7) !== month}
                    isToday={day === todayKey}
                    active={day === focusDay}
                    moving={moving !== null}
                    by={by}
                    labelsById={props.labelsById}
                    onKey={onDayKey}
                    onFocus={() => setActiveDay(day)}
                    onClick={() => {
                      if (!moving) return;
                      drop(moving, day);
                      setMoving(null);
                    }}
                    onMore={() => setExpanded((known) => new Set(known).add(day))}
                    cardApi={cardApi}
                  />
                );
              })}
            </div>
          ))}
        </div>
        <Undated
          rows={undated.slice(0, undatedShown)}
          total={undated.length}
          title={by === 'dueDate' ? vt.noDueDate : vt.noStartDate}
          hint={vt.undatedHint(by === 'dueDate' ? 'due' : 'start')}
          by={by}
          labelsById={props.labelsById}
          onMore={() => setUndatedShown((shown) => shown + UNDATED_SHOWN)}
          cardApi={cardApi}
        />
      </div>
    </div>
  );
}

interface CardApi {
  onKey: (event: KeyboardEvent<HTMLElement>, row: Row, day: string | null) => void;
  open: (cardId: string) => void;
}

/** One day of the grid: its number, its cards (a few in a month, all in a week) and a drop target. */
const Day = memo(function Day(props: {
  day: string;
  rows: Row[];
  hidden: number;
  total: number;
  outside: boolean;
  isToday: boolean;
  active: boolean;
  moving: boolean;
  by: DateKey;
  labelsById: ReadonlyMap<string, Label>;
  onKey: (event: KeyboardEvent<HTMLElement>, day: string) => void;
  onFocus: () => void;
  onClick: () => void;
  onMore: () => void;
  cardApi: { current: CardApi };
}) {
  const element = useRef<HTMLDivElement>(null);
  const over = useCardDrop(element, 'calendar-day', props.day);
  // the day's name is its content (its date and count first, then its cards), as a screen reader reads it on arrival
  const label = `${dayWords(props.day, { dateStyle: 'full' })}${props.isToday ? `, ${vt.today}` : ''}, ${vt.cardsCount(props.total)}`;
  return (
    <div
      ref={element}
      role="gridcell"
      tabIndex={props.active ? 0 : -1}
      aria-current={props.isToday ? 'date' : undefined}
      data-day={props.day}
      className={`calendar-day${props.outside ? ' outside' : ''}${props.isToday ? ' today' : ''}${over ? ' drop-over' : ''}${props.moving && props.active ? ' drop-over' : ''}`}
      onKeyDown={(event) => props.onKey(event, props.day)}
      onFocus={(event) => event.target === event.currentTarget && props.onFocus()}
      onClick={(event) => event.target === event.currentTarget && props.onClick()}
    >
      <span className="visually-hidden">{label}</span>
      <span className="calendar-day-head" aria-hidden="true">
        <span className="calendar-date">{Number(props.day.slice(8))}</span>
        {/* a phone's week is a column of days, each saying its weekday */}
        <span className="calendar-day-weekday">{dayWords(props.day, { weekday: 'long' })}</span>
      </span>
      <div className="calendar-cards" data-cards="">
        {props.rows.map((row) => (
          <CalendarCard key={row.card._id} row={row} day={props.day} by={props.by} labelsById={props.labelsById} tabbable={props.active} api={props.cardApi} />
        ))}
      </div>
      {props.hidden ? (
        <button type="button" className="calendar-more" tabIndex={props.active ? 0 : -1} onClick={props.onMore}>
          {vt.more(props.hidden)}
        </button>
      ) : null}
    </div>
  );
});

/** A card on the calendar (or aside): its labels' colours, name and time; draggable, Enter opens it. */
const CalendarCard = memo(function CalendarCard(props: {
  row: Row;
  day: string | null;
  by: DateKey;
  labelsById: ReadonlyMap<string, Label>;
  tabbable: boolean;
  api: { current: CardApi };
}) {
  const { card } = props.row;
  const element = useRef<HTMLDivElement>(null);
  const [dragging, setDragging] = useState(false);
  useEffect(() => {
    const node = element.current;
    if (!node) return;
    return combine(
      draggable({
        element: node,
        getInitialData: () => ({ type: 'calendar-card', cardId: card._id }),
        onDragStart: () => setDragging(true),
        onDrop: () => setDragging(false),
      }),
    );
  }, [card._id]);
  const value = card[props.by];
  const time = value ? formatDate(value, { timeStyle: 'short' }) : null;
  const labels = card.labels.flatMap((id) => props.labelsById.get(id) ?? []);
  return (
    <div
      ref={element}
      role="button"
      tabIndex={props.tabbable ? 0 : -1}
      data-card-id={card._id}
      aria-describedby="calendar-card-keys"
      className={`calendar-card${card.complete.status ? ' complete' : ''}${dragging ? ' dragging' : ''}`}
      title={time && props.day ? `${time} ${card.name}` : card.name}
      onClick={() => props.api.current.open(card._id)}
      onKeyDown={(event) => props.api.current.onKey(event, props.row, props.day)}
    >
      {labels.length ? (
        <span className="calendar-labels" aria-hidden="true">
          {labels.slice(0, 4).map((label) => (
            <span key={label._id} style={{ background: label.color.hex }} />
          ))}
        </span>
      ) : null}
      <span className="calendar-card-text">
        {time && props.day ? (
          <span className="calendar-time" aria-hidden="true">
            {time}
          </span>
        ) : null}
        <span className="calendar-name" dir="auto">
          {card.complete.status ? (
            <>
              <CheckCircle2 size={13} aria-hidden="true" className="calendar-done" />
              <span className="visually-hidden">{vt.complete}: </span>
            </>
          ) : null}
          {card.name}
        </span>
      </span>
      {/* the name first for a screen reader, then the time, then the list */}
      <span className="visually-hidden">
        {time && props.day ? `, ${time}` : ''}, {props.row.list.name}
      </span>
    </div>
  );
});

/** The cards without the shown date: a list to drag from (or pick up with M), and a target that takes a date away. */
function Undated(props: {
  rows: Row[];
  total: number;
  title: string;
  hint: string;
  by: DateKey;
  labelsById: ReadonlyMap<string, Label>;
  onMore: () => void;
  cardApi: { current: CardApi };
}) {
  const element = useRef<HTMLElement>(null);
  const over = useCardDrop(element, 'calendar-undated');
  return (
    <section ref={element} className={`calendar-undated${over ? ' drop-over' : ''}`} aria-labelledby="calendar-undated-title">
      <h3 id="calendar-undated-title">
        {props.title} <span className="muted">({props.total})</span>
      </h3>
      <p className="muted calendar-undated-hint">{props.hint}</p>
      <p id="calendar-card-keys" className="muted calendar-undated-hint">
        {vt.cardKeys}
      </p>
      <div className="calendar-cards" data-cards="">
        {props.rows.map((row) => (
          <CalendarCard key={row.card._id} row={row} day={null} by={props.by} labelsById={props.labelsById} tabbable api={props.cardApi} />
        ))}
      </div>
      {props.total > props.rows.length ? (
        <button type="button" onClick={props.onMore}>
          {vt.showMore(props.total - props.rows.length)}
        </button>
      ) : null}
    </section>
  );
}

/** A place of the calendar a card can be dropped on (a day, or the undated list); answers whether one is over it now. */
function useCardDrop(element: RefObject<HTMLElement | null>, type: 'calendar-day' | 'calendar-undated', day?: string): boolean {
  const [over, setOver] = useState(false);
  useEffect(() => {
    const node = element.current;
    if (!node) return;
    return dropTargetForElements({
      element: node,
      canDrop: ({ source }) => source.data.type === 'calendar-card',
      getData: () => ({ type, day }),
      onDragEnter: () => setOver(true),
      onDragLeave: () => setOver(false),
      onDrop: () => setOver(false),
    });
  }, [element, type, day]);
  return over;
}
