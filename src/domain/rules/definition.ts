/**
 * What a board rule says, apart from the database: which recorded events trigger it, whether its
 * conditions hold on a card, what its actions would change (a dry run), and the rule in words.
 * Pure: no query.
 */
import type { Rule, RuleAction, RuleCondition, RuleTrigger } from '../../schemas/rules.ts';
import type { CardState, RuleRow } from '../../storage/repositories/rules.ts';

export const HOUR_MS = 3_600_000;

/** The rule record of a row. */
export function toRule(row: RuleRow): Rule {
  return {
    _id: row.id,
    company: row.company_id,
    team: row.team_id,
    board: row.board_id,
    name: row.name,
    trigger: JSON.parse(row.trigger) as RuleTrigger,
    conditions: JSON.parse(row.conditions) as RuleCondition[],
    actions: JSON.parse(row.actions) as RuleAction[],
    enabled: Boolean(Number(row.enabled)),
    pausedReason: row.paused_reason,
    author: row.author_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    __v: Number(row.version),
  };
}

/** What a recorded event tells a trigger: its type, card and data, read from the feed. */
export interface TriggeringEvent {
  type: string;
  card: string | null;
  data: Record<string, unknown>;
}

/** What the matching reads besides the event: comments' text, checklists now all done. */
export interface TriggerFacts {
  comments: ReadonlyMap<string, string>;
  doneChecklists: ReadonlySet<string>;
}

const place = (value: unknown) => (value ?? {}) as { list?: string; board?: string };
const ids = (value: unknown) => (Array.isArray(value) ? (value as string[]) : []);

/** Whether the event (of the rule's board) triggers the rule. Due-date triggers are never events. */
export function triggeredBy(trigger: RuleTrigger, event: TriggeringEvent, facts: TriggerFacts): boolean {
  if (!event.card) return false;
  const { data } = event;
  switch (trigger.type) {
    case 'card.created':
      return (event.type === 'card.created' || event.type === 'card.copied') && (trigger.list === undefined || data.list === trigger.list);
    case 'card.moved.into': {
      if (event.type === 'card.created' || event.type === 'card.copied') return false;
      return event.type === 'card.moved' && place(data.to).list === trigger.list && place(data.from).list !== trigger.list;
    }
    case 'card.moved.out':
      return event.type === 'card.moved' && place(data.from).list === trigger.list && place(data.to).list !== trigger.list;
    case 'label.added':
    case 'label.removed': {
      if (event.type !== 'card.labels.toggled') return false;
      const changed = ids(trigger.type === 'label.added' ? data.added : data.removed);
      return trigger.label === undefined ? changed.length > 0 : changed.includes(trigger.label);
    }
    case 'member.added':
    case 'member.removed': {
      if (event.type !== 'card.members.toggled') return false;
      const changed = ids(trigger.type === 'member.added' ? data.added : data.removed);
      return trigger.user === undefined ? changed.length > 0 : changed.includes(trigger.user);
    }
    case 'card.completed': {
      if (event.type !== 'card.updated') return false;
      const after = (data.after ?? {}) as Record<string, unknown>;
      return ids(data.fields).includes('complete.status') && after['complete.status'] === true;
    }
    case 'checklist.done':
      return event.type === 'checklist.item.completed' && typeof data.checklist === 'string' && facts.doneChecklists.has(data.checklist);
    case 'comment.contains': {
      if (event.type !== 'comment.created' || typeof data.comment !== 'string') return false;
      return (facts.comments.get(data.comment) ?? '').toLowerCase().includes(trigger.text.toLowerCase());
    }
    case 'due.soon':
    case 'due.passed':
      return false;
  }
}

/** How far before a card's due date a due-date trigger fires (0: when it passes). */
export function dueLeadMs(trigger: RuleTrigger): number | undefined {
  if (trigger.type === 'due.passed') return 0;
  if (trigger.type === 'due.soon') return trigger.amount * (trigger.unit === 'days' ? 24 : 1) * HOUR_MS;
  return undefined;
}

/** Whether every condition holds on the card as it is. */
export function conditionsHold(conditions: readonly RuleCondition[], card: CardState): boolean {
  return conditions.every((condition) => {
    switch (condition.type) {
      case 'label':
        return card.labels.has(condition.label) === condition.has;
      case 'member':
        return card.members.has(condition.user) === condition.has;
      case 'list':
        return card.list_id === condition.list;
      case 'due.set':
        return (card.due_date !== null) === condition.set;
      case 'due.before':
        return card.due_date !== null && Date.parse(card.due_date) < Date.parse(condition.date);
      case 'due.after':
        return card.due_date !== null && Date.parse(card.due_date) > Date.parse(condition.date);
    }
  });
}

/** The due date a shift leads to: from the card's due date, or from `now` when it has none. */
export function shiftedDue(action: Extract<RuleAction, { type: 'due.shift' }>, due: string | null, now: number): string {
  const ms = action.amount * (action.unit === 'days' ? 24 : 1) * HOUR_MS * (action.direction === 'later' ? 1 : -1);
  return new Date((due ? Date.parse(due) : now) + ms).toISOString();
}

/** The ids of a toggle (add, remove or toggle) that the card's toggle must flip. */
export function toFlip(mode: 'add' | 'remove' | 'toggle', wanted: readonly string[], has: ReadonlySet<string>): string[] {
  if (mode === 'toggle') return [...wanted];
  return wanted.filter((id) => (mode === 'add' ? !has.has(id) : has.has(id)));
}

/** Names the words use for a board's lists, labels and people. */
export interface Names {
  list(id: string): string;
  label(id: string): string;
  user(id: string): string;
}

/** What one action would change: in English words, and in fields a client words in its own language. */
export interface WouldChange {
  action: string;
  description: string;
  list?: string;
  label?: string;
  user?: string;
  added?: boolean;
  date?: string | null;
  status?: boolean;
  name?: string;
  count?: number;
}

/**
 * What each action would change on the card, in words (a dry run); an action that would change
 * nothing is left out. Moves within the card's own list to where it is are counted as changes.
 */
export function wouldChange(actions: readonly RuleAction[], card: CardState, names: Names, now: number): WouldChange[] {
  const changes: WouldChange[] = [];
  const labels = new Set(card.labels);
  const members = new Set(card.members);
  let due = card.due_date;
  for (const action of actions) {
    const say = (description: string, detail: Omit<WouldChange, 'action' | 'description'> = {}) =>
      changes.push({ action: action.type, description, ...detail });
    switch (action.type) {
      case 'move':
        if (card.list_id !== action.list)
          say(`move from ${names.list(card.list_id)} to the ${action.position} of ${names.list(action.list)}`, { list: action.list });
        break;
      case 'labels.add':
      case 'labels.remove':
      case 'labels.toggle': {
        const flip = toFlip(action.type.slice(7) as 'add' | 'remove' | 'toggle', action.labels, labels);
        for (const id of flip) {
          say(`${labels.has(id) ? 'remove' : 'add'} the label ${names.label(id)}`, { label: id, added: !labels.has(id) });
          if (labels.has(id)) labels.delete(id);
          else labels.add(id);
        }
        break;
      }
      case 'members.add':
      case 'members.remove':
      case 'members.toggle': {
        const flip = toFlip(action.type.slice(8) as 'add' | 'remove' | 'toggle', action.users, members);
        for (const id of flip) {
          say(`${members.has(id) ? 'remove' : 'add'} the member ${names.user(id)}`, { user: id, added: !members.has(id) });
          if (members.has(id)) members.delete(id);
          else members.add(id);
        }
        break;
      }
      case 'due.set':
        if (action.date !== due) say(action.date ? `set the due date to ${action.date}` : 'clear the due date', { date: action.date });
        due = action.date;
        break;
      case 'due.shift':
        due = shiftedDue(action, due, now);
        say(`set the due date to ${due}`, { date: due });
        break;
      case 'complete':
        if (Boolean(Number(card.complete_status)) !== action.status)
          say(action.status ? 'mark it complete' : 'mark it not complete', { status: action.status });
        break;
      case 'checklist.add':
        say(`add the checklist ${action.name} (${action.items.length} items)`, { name: action.name, count: action.items.length });
        break;
      case 'comment':
        say('post a comment');
        break;
      case 'archive':
        say('archive it');
        break;
      case 'card.create':
        say(`create the card ${action.name} in ${names.list(action.list)}`, { name: action.name, list: action.list });
        break;
      case 'notify':
        if (card.members.size) say(`notify its ${card.members.size} member(s)`, { count: card.members.size });
        break;
    }
  }
  return changes;
}
