import type { RuleAction, RuleCondition, RuleTrigger } from './words.ts';

/**
 * The editor's choices: each trigger, condition and action the user picks from a list of phrases
 * ("it lacks the label", "mark it not complete") is one kind here, mapped to and from the API's shape.
 */

/** What a new part starts with: the board's first list, label and member ('' when it has none). */
export interface Defaults {
  list: string;
  label: string;
  user: string;
}

export const TRIGGER_KINDS = {
  created: (d: Defaults): RuleTrigger => ({ type: 'card.created', list: d.list }),
  movedInto: (d: Defaults): RuleTrigger => ({ type: 'card.moved.into', list: d.list }),
  movedOut: (d: Defaults): RuleTrigger => ({ type: 'card.moved.out', list: d.list }),
  labelAdded: (): RuleTrigger => ({ type: 'label.added' }),
  labelRemoved: (): RuleTrigger => ({ type: 'label.removed' }),
  memberAdded: (): RuleTrigger => ({ type: 'member.added' }),
  memberRemoved: (): RuleTrigger => ({ type: 'member.removed' }),
  completed: (): RuleTrigger => ({ type: 'card.completed' }),
  checklistDone: (): RuleTrigger => ({ type: 'checklist.done' }),
  dueSoon: (): RuleTrigger => ({ type: 'due.soon', amount: 1, unit: 'days' }),
  duePassed: (): RuleTrigger => ({ type: 'due.passed' }),
  comment: (): RuleTrigger => ({ type: 'comment.contains', text: '' }),
} as const;
export type TriggerKind = keyof typeof TRIGGER_KINDS;

const TRIGGER_OF_TYPE: Record<RuleTrigger['type'], TriggerKind> = {
  'card.created': 'created',
  'card.moved.into': 'movedInto',
  'card.moved.out': 'movedOut',
  'label.added': 'labelAdded',
  'label.removed': 'labelRemoved',
  'member.added': 'memberAdded',
  'member.removed': 'memberRemoved',
  'card.completed': 'completed',
  'checklist.done': 'checklistDone',
  'due.soon': 'dueSoon',
  'due.passed': 'duePassed',
  'comment.contains': 'comment',
};
export const triggerKind = (trigger: RuleTrigger): TriggerKind => TRIGGER_OF_TYPE[trigger.type];

const inAWeek = () => new Date(Date.now() + 7 * 86_400_000).toISOString();

export const CONDITION_KINDS = {
  hasLabel: (d: Defaults): RuleCondition => ({ type: 'label', label: d.label, has: true }),
  lacksLabel: (d: Defaults): RuleCondition => ({ type: 'label', label: d.label, has: false }),
  hasMember: (d: Defaults): RuleCondition => ({ type: 'member', user: d.user, has: true }),
  lacksMember: (d: Defaults): RuleCondition => ({ type: 'member', user: d.user, has: false }),
  inList: (d: Defaults): RuleCondition => ({ type: 'list', list: d.list }),
  dueSet: (): RuleCondition => ({ type: 'due.set', set: true }),
  dueUnset: (): RuleCondition => ({ type: 'due.set', set: false }),
  dueBefore: (): RuleCondition => ({ type: 'due.before', date: inAWeek() }),
  dueAfter: (): RuleCondition => ({ type: 'due.after', date: inAWeek() }),
} as const;
export type ConditionKind = keyof typeof CONDITION_KINDS;

export function conditionKind(condition: RuleCondition): ConditionKind {
  switch (condition.type) {
    case 'label':
      return condition.has ? 'hasLabel' : 'lacksLabel';
    case 'member':
      return condition.has ? 'hasMember' : 'lacksMember';
    case 'list':
      return 'inList';
    case 'due.set':
      return condition.set ? 'dueSet' : 'dueUnset';
    case 'due.before':
      return 'dueBefore';
    case 'due.after':
      return 'dueAfter';
  }
}

export const ACTION_KINDS = {
  move: (d: Defaults): RuleAction => ({ type: 'move', list: d.list, position: 'bottom' }),
  addLabel: (d: Defaults): RuleAction => ({ type: 'labels.add', labels: [d.label] }),
  removeLabel: (d: Defaults): RuleAction => ({ type: 'labels.remove', labels: [d.label] }),
  toggleLabel: (d: Defaults): RuleAction => ({ type: 'labels.toggle', labels: [d.label] }),
  addMember: (d: Defaults): RuleAction => ({ type: 'members.add', users: [d.user] }),
  removeMember: (d: Defaults): RuleAction => ({ type: 'members.remove', users: [d.user] }),
  toggleMember: (d: Defaults): RuleAction => ({ type: 'members.toggle', users: [d.user] }),
  setDue: (): RuleAction => ({ type: 'due.set', date: inAWeek() }),
  clearDue: (): RuleAction => ({ type: 'due.set', date: null }),
  shiftDue: (): RuleAction => ({ type: 'due.shift', amount: 1, unit: 'days', direction: 'later' }),
  complete: (): RuleAction => ({ type: 'complete', status: true }),
  notComplete: (): RuleAction => ({ type: 'complete', status: false }),
  checklist: (): RuleAction => ({ type: 'checklist.add', name: '', items: [] }),
  comment: (): RuleAction => ({ type: 'comment', text: '' }),
  archive: (): RuleAction => ({ type: 'archive' }),
  createCard: (d: Defaults): RuleAction => ({ type: 'card.create', list: d.list, name: '', position: 'bottom' }),
  notify: (): RuleAction => ({ type: 'notify' }),
} as const;
export type ActionKind = keyof typeof ACTION_KINDS;

export function actionKind(action: RuleAction): ActionKind {
  switch (action.type) {
    case 'move':
      return 'move';
    case 'labels.add':
      return 'addLabel';
    case 'labels.remove':
      return 'removeLabel';
    case 'labels.toggle':
      return 'toggleLabel';
    case 'members.add':
      return 'addMember';
    case 'members.remove':
      return 'removeMember';
    case 'members.toggle':
      return 'toggleMember';
    case 'due.set':
      return action.date ? 'setDue' : 'clearDue';
    case 'due.shift':
      return 'shiftDue';
    case 'complete':
      return action.status ? 'complete' : 'notComplete';
    case 'checklist.add':
      return 'checklist';
    case 'comment':
      return 'comment';
    case 'archive':
      return 'archive';
    case 'card.create':
      return 'createCard';
    case 'notify':
      return 'notify';
  }
}

/**
 * The editor picks one label or member per action; an action of several (made through the API) is
 * shown as one row per label or member. For add, remove and toggle alike that does the same.
 */
export function oneEach(actions: readonly RuleAction[]): RuleAction[] {
  return actions.flatMap((action): RuleAction[] => {
    if ('labels' in action && action.labels.length > 1) return action.labels.map((id) => ({ ...action, labels: [id] }));
    if ('users' in action && action.users.length > 1) return action.users.map((id) => ({ ...action, users: [id] }));
    return [action];
  });
}

/** Whether every part names what it needs (a list, a label, a person, a text): the rule can be saved. */
export function complete(trigger: RuleTrigger, conditions: readonly RuleCondition[], actions: readonly RuleAction[]): boolean {
  const parts: object[] = [trigger, ...conditions, ...actions];
  const filled = parts.every((part) =>
    Object.entries(part).every(([key, value]) => {
      if (key === 'labels' || key === 'users') return (value as string[]).every(Boolean);
      if (key === 'items' || key === 'date' || key === 'type') return true;
      return value !== '';
    }),
  );
  return filled && actions.length > 0;
}

/** A datetime-local value (the browser's zone) from an instant, and back. */
export function toLocalInput(iso: string): string {
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
export const fromLocalInput = (value: string): string => new Date(value).toISOString();
