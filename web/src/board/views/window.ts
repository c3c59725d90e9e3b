/**
 * The dates window a calendar or timeline link shows (docs/decisions/0295), worked out from the URL
 * before the view's code has loaded, so the board page reads only those cards first. Days are the
 * person's, the window's ends UTC instants: a week's margin on each side covers every time zone and
 * every first day of the week, and cards a little outside the grid do no harm.
 */
export interface DatesWindowAsk {
  from: string;
  to: string;
  by: 'due' | 'start' | 'span';
}

const DAY = 86_400_000;
const MARGIN = 7 * DAY;

/** Midnight UTC of a YYYY-MM-DD day (today, the person's, when absent or malformed). */
function dayStart(value: string | null): number {
  if (value && /^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const time = Date.parse(`${value}T00:00:00Z`);
    if (!Number.isNaN(time)) return time;
  }
  const now = new Date();
  return Date.UTC(now.getFullYear(), now.getMonth(), now.getDate());
}

const iso = (time: number) => new Date(time).toISOString();

/** The window the view in `params` shows, or undefined for the views that show every card. */
export function datesWindowOf(params: URLSearchParams): DatesWindowAsk | undefined {
  const view = params.get('view');
  const anchor = dayStart(params.get('date'));
  if (view === 'calendar') {
    const by = params.get('by') === 'start' ? 'start' : 'due';
    if (params.get('range') === 'week') return { from: iso(anchor - MARGIN), to: iso(anchor + DAY + MARGIN), by };
    const day = new Date(anchor);
    const first = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), 1);
    const next = Date.UTC(day.getUTCFullYear(), day.getUTCMonth() + 1, 1);
    return { from: iso(first - MARGIN), to: iso(next + MARGIN), by };
  }
  // the timeline shows six weeks from the week before the anchor's
  if (view === 'timeline') return { from: iso(anchor - 2 * MARGIN - DAY), to: iso(anchor + 6 * MARGIN + DAY), by: 'span' };
  return undefined;
}
