import { startOfWeek, today } from '@internationalized/date';
import { defaultRangeExtractor, type Range as Rows, useVirtualizer } from '@tanstack/react-virtual';
import { ChevronLeft, ChevronRight } from 'lucide-react';
import { type KeyboardEvent, type PointerEvent, useCallback, useMemo, useRef, useState } from 'react';
import type { Member } from '../../api.ts';
import { currentLocale, currentTimeZone, formatDate, formatList } from '../../i18n/messages.ts';
import type { BoardRelation } from '../../relations/relations.ts';
import { Avatar } from '../../ui/Avatar.tsx';
import type { Row } from '../calendar/BoardCalendar.tsx';
import type { BoardActions } from '../store.ts';
import { addDays, calendarDay, type DateKey, type DatesChange, dayOf, daysBetween, isDay, moveDates, resizeDates } from '../views/days.ts';
import { viewsText as vt } from '../views/strings.ts';
import '../views/views.css';
import { useUrlState, withParams } from '../useUrlState.ts';

type Grouping = 'list' | 'member';
type Drag = { cardId: string; mode: 'move' | DateKey; startX: number; days: number; moved: boolean };

/** The weeks shown at once, and the days a step moves them. */
const WEEKS = 6;
const STEP_DAYS = 28;
const ROW = 36;
const GROUP = 34;
const HEAD = 60;
/** A bar narrower than this shows its card's name after it, not in it. */
const NAME_INSIDE = 120;
/** Rows drawn beyond the visible ones each way, so a scroll or Tab finds the next already there. */
const OVERSCAN = 10;

const dayWords = (day: string, options: Intl.DateTimeFormatOptions) => formatDate(`${day}T12:00:00Z`, { ...options, timeZone: 'UTC' });

/** A card's place on the timeline: its first and last day (a card with one date is a point on it). */
interface Span {
  row: Row;
  from: string;
  to: string;
  point: boolean;
}
interface Group {
  key: string;
  name: string;
  member?: Member;
  spans: Span[];
}
/** A line of the timeline: a group's name, or one of its bars (`index`: its place in the group). */
interface Line {
  group: number;
  top: number;
  span?: Span;
  index: number;
}

/**
 * The board as a timeline: each dated card a bar from its start to its due day (a point when it has
 * one date), grouped by list or by member, with "blocks" relations drawn as arrows and today marked.
 * A bar dragged moves both dates, an end dragged moves that date; the card's dates (Enter opens the
 * card) are the keyboard's way, and , or . moves a bar a day.
 */
export default function BoardTimeline(props: {
  boardName: string;
  rows: Row[];
  members: Member[];
  relations: readonly BoardRelation[];
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
      return { group: (params.get('group') === 'member' ? 'member' : 'list') as Grouping, day: isDay(date) ? date : todayKey };
    },
    (next, params) => withParams(params, { group: next.group === 'member' ? 'member' : null, date: next.day === todayKey ? null : next.day }),
    props.setParams,
  );
  const write = (change: Partial<typeof current>) => setCurrent({ ...current, ...change });
  // a week before the anchor's, so today is not on the first column
  const first = useMemo(() => startOfWeek(calendarDay(current.day), locale).subtract({ weeks: 1 }).toString(), [current.day, locale]);
  const count = WEEKS * 7;
  const last = addDays(first, count - 1);
  const days = useMemo(() => Array.from({ length: count }, (_, index) => addDays(first, index)), [first, count]);

  const [dayWidth, setDayWidth] = useState(32);
  const { groups, undated, outside } = useMemo(() => {
    const spans: Span[] = [];
    let undated = 0;
    let outside = 0;
    for (const row of props.rows) {
      const { startDate, dueDate } = row.card;
      if (!startDate && !dueDate) {
        undated++;
        continue;
      }
      const from = dayOf((startDate ?? dueDate)!, zone);
      const to = dayOf((dueDate ?? startDate)!, zone);
      if (to < first || from > last) {
        outside++;
        continue;
      }
      spans.push({ row, from, to, point: !startDate || !dueDate });
    }
    spans.sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to) || a.row.card.name.localeCompare(b.row.card.name));
    const groups: Group[] = [];
    if (current.group === 'list') {
      const seen = new Map<string, Group>();
      for (const row of props.rows) if (!seen.has(row.list._id)) seen.set(row.list._id, { key: row.list._id, name: row.list.name, spans: [] });
      for (const span of spans) seen.get(span.row.list._id)?.spans.push(span);
      groups.push(...seen.values());
    } else {
      const byMember = new Map<string, Group>(props.members.map((member) => [member._id, { key: member._id, name: member.fullName, member, spans: [] }]));
      const nobody: Group = { key: 'nobody', name: vt.noMembers, spans: [] };
      for (const span of spans) {
        if (!span.row.card.members.length) nobody.spans.push(span);
        for (const member of span.row.card.members) {
          let group = byMember.get(member._id);
          if (!group) {
            group = { key: member._id, name: member.fullName, member: member as Member, spans: [] };
            byMember.set(member._id, group);
          }
          group.spans.push(span);
        }
      }
      groups.push(...[...byMember.values()].filter((group) => group.spans.length), nobody);
    }
    return { groups: groups.filter((group) => group.spans.length), undated, outside };
  }, [props.rows, props.members, current.group, zone, first, last]);

  // each line's top (the rows are virtualised over them) and each bar's, for the arrows (a card under two members: its first bar)
  const layout = useMemo(() => {
    const tops = new Map<string, { top: number; span: Span }>();
    const lines: Line[] = [];
    const groupTops: number[] = [];
    let top = HEAD;
    groups.forEach((group, index) => {
      groupTops.push(top);
      lines.push({ group: index, top, index: -1 });
      top += GROUP;
      group.spans.forEach((span, place) => {
        if (!tops.has(span.row.card._id)) tops.set(span.row.card._id, { top, span });
        lines.push({ group: index, top, span, index: place });
        top += ROW;
      });
    });
    return { tops, lines, groupTops, height: top };
  }, [groups]);

  const [drag, setDrag] = useState<Drag | null>(null);
  const rtl = typeof document !== 'undefined' && document.documentElement.dir === 'rtl';
  const x = (day: string) => daysBetween(first, day) * dayWidth;

  /** A bar's new dates: moved or one end resized by `days`, said in the toast. */
  function apply(row: Row, mode: Drag['mode'], days: number) {
    const change: DatesChange = mode === 'move' ? moveDates(row.card, days, zone) : resizeDates(row.card, mode, days, zone);
    if (!Object.keys(change).length) return;
    const after = { ...row.card, ...change };
    const words = vt.rescheduledSpan(row.card.name, spanWords(after.startDate, after.dueDate));
    void props.actions.rescheduleCard(row.card._id, change, { done: words, undone: vt.putBack(row.card.name) });
  }

  const onPointerDown = (event: PointerEvent<HTMLElement>, cardId: string, mode: Drag['mode']) => {
    if (event.button !== 0) return;
    event.stopPropagation();
    event.currentTarget.setPointerCapture(event.pointerId);
    setDrag({ cardId, mode, startX: event.clientX, days: 0, moved: false });
  };
  const onPointerMove = (event: PointerEvent<HTMLElement>) => {
    if (!drag) return;
    const dx = (event.clientX - drag.startX) * (rtl ? -1 : 1);
    const days = Math.round(dx / dayWidth);
    if (days !== drag.days || (!drag.moved && Math.abs(dx) > 4)) setDrag({ ...drag, days, moved: drag.moved || Math.abs(dx) > 4 });
  };
  const onPointerUp = (row: Row) => {
    if (!drag) return;
    const done = drag;
    setDrag(null);
    if (!done.moved) props.openCard(row.card._id);
    else if (done.days) apply(row, done.mode, done.days);
  };

  function onBarKey(event: KeyboardEvent<HTMLElement>, row: Row) {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      props.openCard(row.card._id);
    } else if (event.key === ',' || event.key === '.') {
      event.preventDefault();
      apply(row, 'move', event.key === ',' ? -1 : 1);
    }
  }

  /** The bar's days as a drag shows them. */
  const shown = (span: Span): { from: string; to: string } => {
    if (!drag || drag.cardId !== span.row.card._id || !drag.days) return span;
    if (drag.mode === 'move') return { from: addDays(span.from, drag.days), to: addDays(span.to, drag.days) };
    if (drag.mode === 'startDate') return { from: addDays(span.from, drag.days) > span.to ? span.to : addDays(span.from, drag.days), to: span.to };
    return { from: span.from, to: addDays(span.to, drag.days) < span.from ? span.from : addDays(span.to, drag.days) };
  };

  const blockers = useMemo(() => {
    const names = new Map<string, string[]>();
    for (const relation of props.relations) {
      if (relation.kind !== 'blocks') continue;
      names.set(relation.to._id, [...(names.get(relation.to._id) ?? []), relation.from.name]);
    }
    return names;
  }, [props.relations]);
  const arrows = props.relations.flatMap((relation) => {
    const from = layout.tops.get(relation.from._id);
    const to = layout.tops.get(relation.to._id);
    if (relation.kind !== 'blocks' || !from || !to) return [];
    const a = shown(from.span);
    const b = shown(to.span);
    const x1 = x(a.to) + dayWidth - (from.span.point ? dayWidth / 2 - 6 : 0);
    const x2 = x(b.from) + (to.span.point ? dayWidth / 2 - 6 : 0);
    const y1 = from.top + ROW / 2;
    const y2 = to.top + ROW / 2;
    // late: the blocker ends after the blocked card starts
    const late = a.to >= b.from;
    const bend = Math.max(12, Math.abs(x2 - x1) / 2);
    return [{ id: relation._id, late, d: `M ${x1} ${y1} C ${x1 + bend} ${y1}, ${x2 - bend} ${y2}, ${x2 - 2} ${y2}` }];
  });

  // Only the rows in view (and a few each way) are drawn: a board of thousands of dated cards keeps
  // the timeline's scroll and drags smooth. The bar being dragged or holding the focus stays drawn.
  const scroller = useRef<HTMLElement>(null);
  const [focused, setFocused] = useState<string | null>(null);
  // the focus is on one line (a card under two members has two); a drag is of the card's bars
  const keptLine = layout.lines.findIndex((line) =>
    drag ? line.span?.row.card._id === drag.cardId : line.span !== undefined && `${line.group} ${line.span.row.card._id}` === focused,
  );
  const rangeExtractor = useCallback(
    (range: Rows) => {
      const indexes = defaultRangeExtractor(range);
      return keptLine < 0 || indexes.includes(keptLine) ? indexes : [...indexes, keptLine].sort((a, b) => a - b);
    },
    [keptLine],
  );
  const virtualizer = useVirtualizer({
    count: layout.lines.length,
    getScrollElement: () => scroller.current,
    estimateSize: (index) => (layout.lines[index]?.span ? ROW : GROUP),
    paddingStart: HEAD,
    overscan: OVERSCAN,
    rangeExtractor,
  });
  // the groups with a line drawn, each with its drawn bars
  const drawn = new Map<number, Line[]>();
  for (const item of virtualizer.getVirtualItems()) {
    const line = layout.lines[item.index];
    if (!line) continue;
    const shownLines = drawn.get(line.group) ?? [];
    if (line.span) shownLines.push(line);
    drawn.set(line.group, shownLines);
  }

  const width = count * dayWidth;
  const todayAt = todayKey >= first && todayKey <= last ? x(todayKey) + dayWidth / 2 : null;
  const title = vt.weekOf(dayWords(first, { dateStyle: 'medium' }), dayWords(last, { dateStyle: 'medium' }));
  const months = days.filter((day, index) => index === 0 || day.endsWith('-01'));

  return (
    <div className="board-view timeline-view">
      <div className="view-tools">
        <button type="button" onClick={() => write({ day: todayKey })}>
          {vt.today}
        </button>
        <span className="view-steps">
          <button type="button" className="icon-button" aria-label={vt.earlier} onClick={() => write({ day: addDays(current.day, -STEP_DAYS) })}>
            <ChevronLeft size={18} aria-hidden="true" className="flip-rtl" />
          </button>
          <button type="button" className="icon-button" aria-label={vt.later} onClick={() => write({ day: addDays(current.day, STEP_DAYS) })}>
            <ChevronRight size={18} aria-hidden="true" className="flip-rtl" />
          </button>
        </span>
        <h2 className="view-title" aria-live="polite">
          {title}
        </h2>
        <div className="segmented" role="group" aria-label={vt.groupBy}>
          <button type="button" aria-pressed={current.group === 'list'} onClick={() => write({ group: 'list' })}>
            {vt.byList}
          </button>
          <button type="button" aria-pressed={current.group === 'member'} onClick={() => write({ group: 'member' })}>
            {vt.byMember}
          </button>
        </div>
        <div className="segmented" role="group" aria-label={vt.zoom}>
          <button type="button" aria-pressed={dayWidth === 32} onClick={() => setDayWidth(32)}>
            {vt.days}
          </button>
          <button type="button" aria-pressed={dayWidth === 12} onClick={() => setDayWidth(12)}>
            {vt.weeks}
          </button>
        </div>
        <span className="muted view-count">
          {formatList([...(undated ? [vt.undatedCount(undated)] : []), ...(outside ? [vt.outsideCount(outside)] : [])], 'unit')}
        </span>
      </div>
      <section
        ref={scroller}
        className="timeline-scroller"
        aria-label={vt.timelineOf(props.boardName, title)}
        onFocus={(event) => setFocused(event.target.closest<HTMLElement>('[data-bar-id]')?.dataset.barId ?? null)}
      >
        <div className="timeline-canvas" style={{ width: `calc(var(--timeline-names) + ${width}px)`, height: layout.height }}>
          <div className="timeline-head" aria-hidden="true" style={{ height: HEAD }}>
            <div className="timeline-corner" />
            <div className="timeline-scale" style={{ width }}>
              {months.map((day, index) => {
                // each month's name keeps to its own days (a month's last few days show a shortened name)
                const next = months[index + 1];
                const span = next ? daysBetween(day, next) : count - daysBetween(first, day);
                return (
                  <span key={day} className="timeline-month" style={{ insetInlineStart: x(day), width: span * dayWidth }}>
                    {dayWords(day, { month: 'long', year: 'numeric' })}
                  </span>
                );
              })}
              {days.map((day) => {
                const weekday = calendarDay(day).toDate('UTC').getUTCDay();
                return (
                  <span
                    key={day}
                    className={`timeline-day${weekday === 0 || weekday === 6 ? ' weekend' : ''}${day === todayKey ? ' today' : ''}`}
                    style={{ insetInlineStart: x(day), width: dayWidth }}
                  >
                    {dayWidth >= 24 || day.endsWith('-01') || weekday === 1 ? Number(day.slice(8)) : ''}
                  </span>
                );
              })}
            </div>
          </div>
          <div className="timeline-grid" aria-hidden="true" style={{ width, top: HEAD }}>
            {days.map((day) => {
              const weekday = calendarDay(day).toDate('UTC').getUTCDay();
              return weekday === 0 || weekday === 6 ? (
                <span key={day} className="timeline-weekend" style={{ insetInlineStart: x(day), width: dayWidth }} />
              ) : null;
            })}
            {todayAt !== null ? <span className="timeline-today" style={{ insetInlineStart: todayAt }} title={vt.today} /> : null}
          </div>
          {todayAt !== null ? (
            <span className="timeline-today-label" style={{ insetInlineStart: `calc(var(--timeline-names) + ${todayAt}px)` }}>
              {vt.today}
            </span>
          ) : null}
          <svg className="timeline-arrows" aria-hidden="true" width={width} height={layout.height} style={{ transform: rtl ? 'scaleX(-1)' : undefined }}>
            <defs>
              <marker id="timeline-arrowhead" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                <path d="M 0 0 L 8 4 L 0 8 z" className="timeline-arrowhead" />
              </marker>
              <marker id="timeline-arrowhead-late" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                <path d="M 0 0 L 8 4 L 0 8 z" className="timeline-arrowhead late" />
              </marker>
            </defs>
            {arrows.map((arrow) => (
              <path
                key={arrow.id}
                d={arrow.d}
                className={`timeline-arrow${arrow.late ? ' late' : ''}`}
                markerEnd={`url(#timeline-arrowhead${arrow.late ? '-late' : ''})`}
              />
            ))}
          </svg>
          {groups.length === 0 ? <p className="muted timeline-empty">{vt.nothingDated}</p> : null}
          {[...drawn].map(([groupIndex, lines]) => {
            const group = groups[groupIndex];
            if (!group) return null;
            const top = layout.groupTops[groupIndex] ?? HEAD;
            return (
              <div
                key={group.key}
                role="group"
                aria-labelledby={`timeline-group-${group.key}`}
                className="timeline-group"
                style={{ top, height: GROUP + group.spans.length * ROW }}
              >
                <h3 id={`timeline-group-${group.key}`} className="timeline-group-name" style={{ height: GROUP }}>
                  {group.member ? <Avatar person={group.member} decorative /> : null}
                  {group.name} <span className="muted">({group.spans.length})</span>
                </h3>
                <ul className="timeline-rows">
                  {lines.map((line) => {
                    const span = line.span as Span;
                    const { card } = span.row;
                    const at = shown(span);
                    const start = Math.max(0, daysBetween(first, at.from));
                    const end = Math.min(count - 1, daysBetween(first, at.to));
                    const blocked = blockers.get(card._id);
                    const label = `${card.name}, ${spanWords(card.startDate, card.dueDate)}${blocked ? `, ${vt.blockedBy(formatList(blocked))}` : ''}`;
                    return (
                      <li
                        key={card._id}
                        className="timeline-row"
                        data-bar-id={`${line.group} ${card._id}`}
                        aria-setsize={group.spans.length}
                        aria-posinset={line.index + 1}
                        style={{ top: line.top - top, height: ROW }}
                      >
                        <button type="button" className="timeline-name" data-card-id={card._id} onClick={() => props.openCard(card._id)}>
                          <span className={card.complete.status ? 'complete' : undefined} dir="auto">
                            {card.name}
                          </span>
                          <span className="visually-hidden">, {span.row.list.name}</span>
                        </button>
                        <div className="timeline-track" style={{ width }}>
                          <div
                            role="button"
                            tabIndex={0}
                            aria-label={label}
                            aria-describedby="timeline-keys"
                            className={`timeline-bar${span.point ? ' point' : ''}${!span.point && (end - start + 1) * dayWidth < NAME_INSIDE ? ' narrow' : ''}${card.complete.status ? ' complete' : ''}${drag?.cardId === card._id && drag.moved ? ' dragging' : ''}`}
                            style={
                              span.point
                                ? { insetInlineStart: x(at.from) + dayWidth / 2 - 7 }
                                : { insetInlineStart: start * dayWidth + 2, width: (end - start + 1) * dayWidth - 4 }
                            }
                            onPointerDown={(event) => onPointerDown(event, card._id, 'move')}
                            onPointerMove={onPointerMove}
                            onPointerUp={() => onPointerUp(span.row)}
                            onPointerCancel={() => setDrag(null)}
                            onKeyDown={(event) => onBarKey(event, span.row)}
                          >
                            {span.point ? null : (
                              <>
                                {daysBetween(first, at.from) >= 0 ? (
                                  <span
                                    className="timeline-handle start"
                                    aria-hidden="true"
                                    onPointerDown={(event) => onPointerDown(event, card._id, 'startDate')}
                                  />
                                ) : null}
                                <span className="timeline-bar-name" aria-hidden="true" dir="auto">
                                  {card.name}
                                </span>
                                {daysBetween(at.to, last) >= 0 ? (
                                  <span
                                    className="timeline-handle end"
                                    aria-hidden="true"
                                    onPointerDown={(event) => onPointerDown(event, card._id, 'dueDate')}
                                  />
                                ) : null}
                              </>
                            )}
                          </div>
                        </div>
                      </li>
                    );
                  })}
                </ul>
              </div>
            );
          })}
        </div>
      </section>
      <p id="timeline-keys" className="muted view-keys">
        {vt.timelineKeys}
      </p>
    </div>
  );
}

/** "3 Dec – 10 Dec", or the one date a card has. */
function spanWords(startDate: string | null, dueDate: string | null): string {
  const words = (iso: string) => formatDate(iso, { dateStyle: 'medium', timeStyle: 'short' });
  if (startDate && dueDate) return vt.fromTo(words(startDate), words(dueDate));
  if (dueDate) return vt.dueOn(words(dueDate));
  return startDate ? vt.startsOn(words(startDate)) : '';
}
