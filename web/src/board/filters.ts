import type { CardFace } from '../api.ts';
import { withParams } from './useUrlState.ts';

export type Due = '' | 'overdue' | 'day' | 'week' | 'none';
export interface Filter {
  text: string;
  labels: string[];
  members: string[];
  due: Due;
}

/** The filter lives in the URL (`?q=&labels=a,b&members=…&due=overdue`), so a link shares it. */
export function filterOf(params: URLSearchParams): Filter {
  const ids = (name: string) => (params.get(name) ?? '').split(',').filter(Boolean);
  const due = params.get('due') ?? '';
  return {
    text: params.get('q') ?? '',
    labels: ids('labels'),
    members: ids('members'),
    due: (['overdue', 'day', 'week', 'none'].includes(due) ? due : '') as Due,
  };
}

export function isFiltering(filter: Filter): boolean {
  return Boolean(filter.text || filter.labels.length || filter.members.length || filter.due);
}

export function writeFilter(params: URLSearchParams, filter: Filter): URLSearchParams {
  return withParams(params, { q: filter.text, labels: filter.labels.join(','), members: filter.members.join(','), due: filter.due });
}

const DAY = 24 * 3600 * 1000;

/** Whether the card shows under the filter: its name has the text, it has one of the labels, one of the members, and a due date of the kind. */
export function matches(card: CardFace, filter: Filter, now: number): boolean {
  if (filter.text && !card.name.toLowerCase().includes(filter.text.toLowerCase())) return false;
  if (filter.labels.length && !card.labels.some((label) => filter.labels.includes(label))) return false;
  if (filter.members.length && !card.members.some((member) => filter.members.includes(member._id))) return false;
  if (filter.due) {
    const due = card.dueDate ? Date.parse(card.dueDate) : null;
    if (filter.due === 'none') return due === null;
    if (due === null) return false;
    if (filter.due === 'overdue') return due < now && !card.complete.status;
    if (filter.due === 'day') return due >= now && due < now + DAY;
    if (filter.due === 'week') return due >= now && due < now + 7 * DAY;
  }
  return true;
}

/** How a due date looks: overdue red, within a day amber, complete green. */
export function dueState(card: Pick<CardFace, 'dueDate' | 'complete'>, now: number): 'overdue' | 'soon' | 'done' | 'later' | null {
  if (!card.dueDate) return null;
  if (card.complete.status) return 'done';
  const due = Date.parse(card.dueDate);
  if (due < now) return 'overdue';
  if (due < now + DAY) return 'soon';
  return 'later';
}

/** Black or white text on a label colour, whichever contrasts more (WCAG relative luminance). */
export function textOn(hex: string): string {
  const value = hex.replace('#', '');
  const channel = (start: number) => {
    const c = parseInt(value.slice(start, start + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
  return (luminance + 0.05) / 0.05 > 1.05 / (luminance + 0.05) ? '#000000' : '#ffffff';
}

export function initials(name: string): string {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((part) => part[0]?.toUpperCase() ?? '')
    .join('');
}
