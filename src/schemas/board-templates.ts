import { type Static, Type } from 'typebox';
import { Id, IdOf, Name, TEXT_CAPS, Text, Timestamp, UpdateOf } from './common.ts';
import { FieldType } from './custom-fields.ts';
import { named } from './named.ts';
import { Board } from './records.ts';
import { RuleAction, RuleCondition, RuleTrigger } from './rules.ts';

/**
 * Board templates kept on a team (docs/decisions/0303-board-templates.md): a snapshot of a board's
 * lists, labels, custom fields and rules, from which new boards of the team are made.
 */

const Key = IdOf("the template's own key of the list or label: its rules name lists and labels by these keys");
const ColorId = IdOf('the _id of a colour of GET /api/v1/label-colors');

export const TemplateList = named('TemplateList', Type.Object({ key: Key, name: Type.String() }));
export const TemplateLabel = named('TemplateLabel', Type.Object({ key: Key, name: Type.String(), color: ColorId }));
export const TemplateField = named(
  'TemplateField',
  Type.Object({
    name: Type.String(),
    type: FieldType,
    unit: Type.String(),
    showOnCard: Type.Boolean(),
    options: Type.Array(Type.Object({ name: Type.String(), color: ColorId })),
  }),
);
export const TemplateRule = named(
  'TemplateRule',
  Type.Object({
    name: Type.String(),
    trigger: RuleTrigger,
    conditions: Type.Array(RuleCondition),
    actions: Type.Array(RuleAction),
    enabled: Type.Boolean(),
  }),
);

export const BoardTemplateContent = named(
  'BoardTemplateContent',
  Type.Object(
    {
      lists: Type.Array(TemplateList, { description: 'in the order the board showed them' }),
      labels: Type.Array(TemplateLabel),
      customFields: Type.Array(TemplateField, { description: 'in their order' }),
      rules: Type.Array(TemplateRule, {
        description: 'lists and labels of the board named by their `key`; a list elsewhere (a card created there) by its _id',
      }),
    },
    { description: 'what a board made from the template starts with' },
  ),
);
export type BoardTemplateContent = Static<typeof BoardTemplateContent>;

export const BoardTemplate = named(
  'BoardTemplate',
  Type.Object({
    _id: Id,
    company: Id,
    team: Id,
    name: Type.String(),
    description: Type.String(),
    sourceBoard: Type.Union([Id, Type.Null()], { description: 'the board it was made from (which may since have changed or gone)' }),
    content: BoardTemplateContent,
    creator: Id,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    __v: Type.Integer(),
  }),
);
export type BoardTemplate = Static<typeof BoardTemplate>;

const Description = Text({ maxLength: TEXT_CAPS.description, description: `what the template is for, at most ${TEXT_CAPS.description} characters` });

export const MakeBoardTemplateBody = Type.Object(
  { name: Type.Optional(Name), description: Type.Optional(Description) },
  { additionalProperties: false, description: "default name: the board's" },
);
export type MakeBoardTemplateBody = Static<typeof MakeBoardTemplateBody>;

export const UpdateBoardTemplateBody = UpdateOf({ name: Name, description: Description });
export type UpdateBoardTemplateBody = Static<typeof UpdateBoardTemplateBody>;

export const CreateBoardFromTemplateBody = Type.Object(
  { name: Type.Optional(Name) },
  { additionalProperties: false, description: "default name: the template's" },
);
export type CreateBoardFromTemplateBody = Static<typeof CreateBoardFromTemplateBody>;

export const BoardTemplateParams = Type.Object({ templateId: Id }, { additionalProperties: false });
export const TeamTemplatesParams = Type.Object({ teamId: Id }, { additionalProperties: false });
export const BoardTemplatesAnswer = Type.Object({ message: Type.String(), templates: Type.Array(BoardTemplate) });

export const LeftOutRule = named(
  'LeftOutRule',
  Type.Object({
    name: Type.String(),
    why: Type.Union([Type.Literal('list'), Type.Literal('label'), Type.Literal('unreached')], {
      description:
        'list: it names a list the board no longer shows; label: a label it no longer has; unreached: it creates cards in a list the caller does not reach',
    }),
    reason: Type.String({ description: 'why the rule was left out, in words' }),
  }),
);
export const BoardFromTemplateAnswer = Type.Object({
  message: Type.String(),
  board: Board,
  leftOut: Type.Object({ rules: Type.Array(LeftOutRule, { description: 'rules of the template the new board did not get' }) }),
});

export const MadeBoardTemplateAnswer = Type.Object({
  message: Type.String(),
  template: BoardTemplate,
  leftOut: Type.Object({ rules: Type.Array(LeftOutRule, { description: 'rules of the board the template could not hold' }) }),
});

/** A template card of one of the team's boards, as every board of the team offers it. */
export const TeamCardTemplate = named(
  'TeamCardTemplate',
  Type.Object({
    _id: Id,
    name: Type.String(),
    board: Id,
    boardName: Type.String(),
    list: Id,
  }),
);
export const TeamCardTemplatesAnswer = Type.Object({ message: Type.String(), cardTemplates: Type.Array(TeamCardTemplate) });
