import type { components, operations } from '@taskboard/client';
import { formatDate, formatList } from '../../i18n/messages.ts';
import { rulesText as r } from './strings.ts';

export type Rule = components['schemas']['Rule'];
export type RuleRun = components['schemas']['RuleRun'];
export type RuleTrigger = Rule['trigger'];
export type RuleCondition = Rule['conditions'][number];
export type RuleAction = Rule['actions'][number];
export type DryRunChange = operations['dryRunRule']['responses'][200]['content']['application/json']['cards'][number]['changes'][number];

/** What the words call the board's lists, labels and people. */
export interface Names {
  list(id: string): string;
  label(id: string): string;
  user(id: string): string;
}

const when = (date: string) => formatDate(date, { dateStyle: 'medium', timeStyle: 'short' });

export function triggerWords(trigger: RuleTrigger, names: Names): string {
  const w = r.triggers;
  switch (trigger.type) {
    case 'card.created':
      return trigger.list ? w.created(names.list(trigger.list)) : w.createdAny;
    case 'card.moved.into':
      return w.movedInto(names.list(trigger.list));
    case 'card.moved.out':
      return w.movedOut(names.list(trigger.list));
    case 'label.added':
      return trigger.label ? w.labelAdded(names.label(trigger.label)) : w.labelAddedAny;
    case 'label.removed':
      return trigger.label ? w.labelRemoved(names.label(trigger.label)) : w.labelRemovedAny;
    case 'member.added':
      return trigger.user ? w.memberAdded(names.user(trigger.user)) : w.memberAddedAny;
    case 'member.removed':
      return trigger.user ? w.memberRemoved(names.user(trigger.user)) : w.memberRemovedAny;
    case 'card.completed':
      return w.completed;
    case 'checklist.done':
      return w.checklistDone;
    case 'due.soon':
      return w.dueSoon(r.span(trigger.amount, trigger.unit));
    case 'due.passed':
      return w.duePassed;
    case 'comment.contains':
      return w.comment(trigger.text);
  }
}

export function conditionWords(condition: RuleCondition, names: Names): string {
  const w = r.conditions;
  switch (condition.type) {
    case 'label':
      return (condition.has ? w.hasLabel : w.lacksLabel)(names.label(condition.label));
    case 'member':
      return (condition.has ? w.hasMember : w.lacksMember)(names.user(condition.user));
    case 'list':
      return w.inList(names.list(condition.list));
    case 'due.set':
      return condition.set ? w.dueSet : w.dueUnset;
    case 'due.before':
      return w.dueBefore(when(condition.date));
    case 'due.after':
      return w.dueAfter(when(condition.date));
  }
}

export function actionWords(action: RuleAction, names: Names): string {
  const w = r.actions;
  const each = (ids: string[], say: (name: string) => string, name: (id: string) => string) => formatList(ids.map((id) => say(name(id))));
  switch (action.type) {
    case 'move':
      return (action.position === 'top' ? w.moveTop : w.moveBottom)(names.list(action.list));
    case 'labels.add':
      return each(action.labels, w.addLabel, names.label);
    case 'labels.remove':
      return each(action.labels, w.removeLabel, names.label);
    case 'labels.toggle':
      return each(action.labels, w.toggleLabel, names.label);
    case 'members.add':
      return each(action.users, w.addMember, names.user);
    case 'members.remove':
      return each(action.users, w.removeMember, names.user);
    case 'members.toggle':
      return each(action.users, w.toggleMember, names.user);
    case 'due.set':
      return action.date ? w.setDue(when(action.date)) : w.clearDue;
    case 'due.shift':
      return (action.direction === 'later' ? w.shiftLater : w.shiftEarlier)(r.span(action.amount, action.unit));
    case 'complete':
      return action.status ? w.complete : w.notComplete;
    case 'checklist.add':
      return w.checklist(action.name);
    case 'comment':
      return w.comment(action.text);
    case 'archive':
      return w.archive;
    case 'card.create':
      return w.createCard(action.name, names.list(action.list));
    case 'notify':
      return w.notify;
  }
}

/** The rule in one sentence: "When a card is moved into Done, mark it complete and remove the label Doing." */
export function ruleSentence(rule: { trigger: RuleTrigger; conditions: RuleCondition[]; actions: RuleAction[] }, names: Names): string {
  return r.sentence(
    triggerWords(rule.trigger, names),
    rule.conditions.length ? formatList(rule.conditions.map((condition) => conditionWords(condition, names))) : '',
    formatList(rule.actions.map((action) => actionWords(action, names))),
  );
}

/** One change a dry run foresees, in the interface's language (from its fields, not the server's English). */
export function changeWords(change: DryRunChange, names: Names): string {
  const w = r.actions;
  switch (change.action) {
    case 'move':
      return r.changes.moveTo(change.list ? names.list(change.list) : r.anotherList);
    case 'labels.add':
    case 'labels.remove':
    case 'labels.toggle':
      return (change.added ? w.addLabel : w.removeLabel)(names.label(change.label ?? ''));
    case 'members.add':
    case 'members.remove':
    case 'members.toggle':
      return (change.added ? w.addMember : w.removeMember)(names.user(change.user ?? ''));
    case 'due.set':
    case 'due.shift':
      return change.date ? w.setDue(when(change.date)) : w.clearDue;
    case 'complete':
      return change.status ? w.complete : w.notComplete;
    case 'checklist.add':
      return w.checklist(change.name ?? '');
    case 'comment':
      return r.changes.comment;
    case 'archive':
      return w.archive;
    case 'card.create':
      return w.createCard(change.name ?? '', change.list ? names.list(change.list) : r.anotherList);
    case 'notify':
      return r.changes.notify(change.count ?? 0);
    default:
      return change.description;
  }
}
