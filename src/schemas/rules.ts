import { type Static, Type } from 'typebox';
import { Id, IdOf, Name, NullableTimestamp, TEXT_CAPS, Text, Timestamp, UpdateOf } from './common.ts';
import { named } from './named.ts';
import { NextCursor, PageQueryFields } from './pagination.ts';

/**
 * Board rules (docs/api.md, "Rules"; the semantics in docs/decisions/0141-board-rules-exactly-once.md):
 * a trigger, conditions that must all hold, and one or more actions.
 */

const Obj = <P extends Parameters<typeof Type.Object>[0]>(properties: P, description: string) =>
  Type.Object(properties, { additionalProperties: false, description });

const ListId = IdOf('a list of the board');
const LabelId = IdOf('a label of the board');
const UserId = IdOf('a user');
const Offset = {
  amount: Type.Integer({ minimum: 1, maximum: 1000 }),
  unit: Type.Union([Type.Literal('hours'), Type.Literal('days')]),
};

export const RuleTrigger = Type.Union(
  [
    Obj({ type: Type.Literal('card.created'), list: Type.Optional(ListId) }, 'a card is created (in `list`, when given)'),
    Obj({ type: Type.Literal('card.moved.into'), list: ListId }, 'a card is moved into `list`'),
    Obj({ type: Type.Literal('card.moved.out'), list: ListId }, 'a card is moved out of `list`'),
    Obj({ type: Type.Literal('label.added'), label: Type.Optional(LabelId) }, 'a label (`label`, when given) is added to a card'),
    Obj({ type: Type.Literal('label.removed'), label: Type.Optional(LabelId) }, 'a label (`label`, when given) is removed from a card'),
    Obj({ type: Type.Literal('member.added'), user: Type.Optional(UserId) }, 'a member (`user`, when given) is added to a card'),
    Obj({ type: Type.Literal('member.removed'), user: Type.Optional(UserId) }, 'a member (`user`, when given) is removed from a card'),
    Obj({ type: Type.Literal('card.completed') }, 'a card is marked complete'),
    Obj({ type: Type.Literal('checklist.done') }, 'the last open item of a checklist is completed'),
    Obj({ type: Type.Literal('due.soon'), ...Offset }, "a card's due date is `amount` `unit` away"),
    Obj({ type: Type.Literal('due.passed') }, "a card's due date has passed"),
    Obj(
      { type: Type.Literal('comment.contains'), text: Text({ maxLength: 200, blank: false, description: 'matched ignoring case' }) },
      'a comment containing `text` is posted',
    ),
  ],
  { description: 'what starts the rule' },
);
export type RuleTrigger = Static<typeof RuleTrigger>;

export const RuleCondition = Type.Union(
  [
    Obj({ type: Type.Literal('label'), label: LabelId, has: Type.Boolean() }, 'the card has (`has` true) or lacks the label'),
    Obj({ type: Type.Literal('member'), user: UserId, has: Type.Boolean() }, 'the card has (`has` true) or lacks the member'),
    Obj({ type: Type.Literal('list'), list: ListId }, 'the card is in the list'),
    Obj({ type: Type.Literal('due.set'), set: Type.Boolean() }, 'the card has (`set` true) or has no due date'),
    Obj({ type: Type.Literal('due.before'), date: Timestamp }, "the card's due date is before `date`"),
    Obj({ type: Type.Literal('due.after'), date: Timestamp }, "the card's due date is after `date`"),
  ],
  { description: 'a condition on the card as it is when the rule runs' },
);
export type RuleCondition = Static<typeof RuleCondition>;

const Ids = <T extends ReturnType<typeof IdOf>>(id: T) => Type.Array(id, { minItems: 1, maxItems: 20, uniqueItems: true });

export const RuleAction = Type.Union(
  [
    Obj(
      { type: Type.Literal('move'), list: ListId, position: Type.Union([Type.Literal('top'), Type.Literal('bottom')]) },
      'move the card to a list of its board',
    ),
    Obj({ type: Type.Literal('labels.add'), labels: Ids(LabelId) }, 'add the labels the card lacks'),
    Obj({ type: Type.Literal('labels.remove'), labels: Ids(LabelId) }, 'remove the labels the card has'),
    Obj({ type: Type.Literal('labels.toggle'), labels: Ids(LabelId) }, 'toggle the labels, as Toggle Multiple Labels does'),
    Obj({ type: Type.Literal('members.add'), users: Ids(UserId) }, 'add the members the card lacks'),
    Obj({ type: Type.Literal('members.remove'), users: Ids(UserId) }, 'remove the members the card has'),
    Obj({ type: Type.Literal('members.toggle'), users: Ids(UserId) }, 'toggle the members, as Toggle Multiple Members does'),
    Obj({ type: Type.Literal('due.set'), date: NullableTimestamp }, 'set (or clear, null) the due date'),
    Obj(
      { type: Type.Literal('due.shift'), ...Offset, direction: Type.Union([Type.Literal('later'), Type.Literal('earlier')]) },
      'shift the due date (from now, when it has none)',
    ),
    Obj({ type: Type.Literal('complete'), status: Type.Boolean() }, 'mark the card complete (true) or not'),
    Obj(
      {
        type: Type.Literal('checklist.add'),
        name: Name,
        items: Type.Array(Name, { maxItems: 50, description: 'the items of the new checklist, in order' }),
      },
      'add a checklist with these items',
    ),
    Obj({ type: Type.Literal('comment'), text: Text({ maxLength: TEXT_CAPS.comment, blank: false }) }, 'post a comment, shown as by the rule'),
    Obj({ type: Type.Literal('archive') }, 'archive the card'),
    Obj(
      {
        type: Type.Literal('card.create'),
        list: IdOf("a list the rule's author reaches"),
        name: Name,
        position: Type.Union([Type.Literal('top'), Type.Literal('bottom')]),
      },
      'create a card elsewhere',
    ),
    Obj({ type: Type.Literal('notify') }, "notify the card's members (a `rule.notified` notification)"),
  ],
  { description: 'what the rule does to the card' },
);
export type RuleAction = Static<typeof RuleAction>;

export const MAX_RULE_CONDITIONS = 10;
export const MAX_RULE_ACTIONS = 10;

const Conditions = Type.Array(RuleCondition, { maxItems: MAX_RULE_CONDITIONS, description: 'all must hold ("and"); none: always' });
const Actions = Type.Array(RuleAction, { minItems: 1, maxItems: MAX_RULE_ACTIONS, description: 'applied in order, in one transaction' });

export const RuleDefinition = Type.Object(
  { name: Name, trigger: RuleTrigger, conditions: Type.Optional(Conditions), actions: Actions, enabled: Type.Optional(Type.Boolean({ default: true })) },
  { additionalProperties: false },
);
export type RuleDefinition = Static<typeof RuleDefinition>;

export const UpdateRuleBody = UpdateOf({
  name: Name,
  trigger: RuleTrigger,
  conditions: Conditions,
  actions: Actions,
  enabled: Type.Boolean({ description: 'true also clears `pausedReason`' }),
});
export type UpdateRuleBody = Static<typeof UpdateRuleBody>;

export const Rule = named(
  'Rule',
  Type.Object({
    _id: Id,
    company: Id,
    team: Id,
    board: Id,
    name: Type.String(),
    trigger: RuleTrigger,
    conditions: Type.Array(RuleCondition),
    actions: Type.Array(RuleAction),
    enabled: Type.Boolean(),
    pausedReason: Type.Union([Type.String(), Type.Null()], { description: 'why the engine paused the rule (it is then disabled); null otherwise' }),
    author: IdOf('the user whose reach the rule acts with'),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    __v: Type.Integer(),
  }),
);
export type Rule = Static<typeof Rule>;

export const RuleRun = named(
  'RuleRun',
  Type.Object({
    _id: Id,
    rule: Id,
    board: Id,
    event: Type.Union([Id, Type.Null()], { description: 'the triggering event; null for a due-date trigger' }),
    card: Type.Union([Id, Type.Null()]),
    depth: Type.Integer({ description: "1: a person's change triggered it; n: the (n-1)th rule of a chain" }),
    status: Type.Union([Type.Literal('pending'), Type.Literal('done'), Type.Literal('skipped'), Type.Literal('failed')]),
    reason: Type.Union([Type.String(), Type.Null()], { description: 'why it was skipped or failed' }),
    actionsTaken: Type.Integer(),
    changes: Type.Array(Type.Record(Type.String(), Type.Unknown()), { description: 'what each action changed' }),
    createdAt: Timestamp,
    finishedAt: NullableTimestamp,
  }),
);
export type RuleRun = Static<typeof RuleRun>;

export const BoardRulesParams = Type.Object({ boardId: Id }, { additionalProperties: false });
export const RuleParams = Type.Object({ ruleId: Id }, { additionalProperties: false });
export const RuleRunsQuery = Type.Object({ ...PageQueryFields }, { additionalProperties: false });

export const RulesAnswer = Type.Object({ message: Type.String(), rules: Type.Array(Rule) });
export const RuleRunsPage = Type.Object({ message: Type.String(), runs: Type.Array(RuleRun), nextCursor: NextCursor });

export const DryRunBody = Type.Object(
  { trigger: Type.Optional(RuleTrigger), conditions: Type.Optional(Conditions), actions: Actions },
  { additionalProperties: false, description: 'a rule, saved or not: its conditions and actions are tried on every open card of the board' },
);
export type DryRunBody = Static<typeof DryRunBody>;

export const DryRunAnswer = Type.Object({
  message: Type.String(),
  cards: Type.Array(
    Type.Object({
      card: Id,
      name: Type.String(),
      changes: Type.Array(
        Type.Object({
          action: Type.String({ description: 'the action type' }),
          description: Type.String({ description: 'the change in English words' }),
          list: Type.Optional(IdOf('`move`: the list it goes to; `card.create`: the list of the new card')),
          label: Type.Optional(IdOf('`labels.*`: the label added or removed')),
          user: Type.Optional(IdOf('`members.*`: the member added or removed')),
          added: Type.Optional(Type.Boolean({ description: '`labels.*`, `members.*`: added (true) or removed' })),
          date: Type.Optional(Type.Union([Timestamp, Type.Null()], { description: '`due.*`: the new due date; null: cleared' })),
          status: Type.Optional(Type.Boolean({ description: '`complete`: the new status' })),
          name: Type.Optional(Type.String({ description: '`checklist.add`, `card.create`: the name' })),
          count: Type.Optional(Type.Integer({ description: "`checklist.add`: its items; `notify`: the card's members" })),
        }),
        { description: 'what the actions would change; nothing: they would change nothing' },
      ),
    }),
    { description: 'the open cards whose conditions hold, in board order' },
  ),
  unchanged: Type.Integer({ description: 'open cards whose conditions do not hold' }),
});
