import { type Static, Type } from 'typebox';
import { Id, IdOf, Name, UpdateOf } from './common.ts';
import { named } from './named.ts';
import { InTeam, LabelColor, record, Stamps } from './records.ts';

/** Custom fields of a board and the values cards hold (docs/decisions/0132). */

export const FieldType = Type.Union(
  [
    Type.Literal('text'),
    Type.Literal('number'),
    Type.Literal('date'),
    Type.Literal('select'),
    Type.Literal('multiselect'),
    Type.Literal('checkbox'),
    Type.Literal('person'),
    Type.Literal('url'),
  ],
  { description: "text, number (with an optional unit), date (a date-time), select, multiselect, checkbox, person (a member of the board's team), url" },
);

export const CustomFieldOption = named('CustomFieldOption', Type.Object({ _id: Id, name: Type.String(), color: LabelColor }));
export type CustomFieldOption = Static<typeof CustomFieldOption>;

export const CustomField = record('CustomField', {
  name: Type.String(),
  type: FieldType,
  unit: Type.String({ description: 'a number field\'s unit, shown after its values ("" for none)' }),
  position: Type.Integer({ description: "the field's index among the board's fields" }),
  showOnCard: Type.Boolean({ description: 'whether card faces show the value' }),
  options: Type.Array(CustomFieldOption, { description: "a select or multi select field's options, in order; [] for the other types" }),
  cardsWithValue: Type.Integer({ description: 'how many cards hold a value of the field (what deleting it clears)' }),
  board: Id,
  creator: Id,
  ...InTeam,
  ...Stamps,
});
export type CustomField = Static<typeof CustomField>;

export const CustomFieldParams = Type.Object({ fieldId: Id }, { additionalProperties: false });

const Unit = Type.String({ maxLength: 20, description: 'at most 20 characters' });
const ColorId = IdOf('the _id of a colour of GET /api/v1/label-colors');

/** An option as a request gives it: an existing option by `_id` (kept, renamed or recoloured), or a new one without. */
const OptionRequest = Type.Object(
  {
    _id: Type.Optional(Id),
    name: Name,
    color: ColorId,
  },
  { additionalProperties: false },
);

const Options = Type.Array(OptionRequest, { maxItems: 100, description: 'in order; at most 100' });

export const CreateCustomFieldBody = Type.Object(
  {
    name: Name,
    type: FieldType,
    unit: Type.Optional(Unit),
    showOnCard: Type.Optional(Type.Boolean({ default: false })),
    position: Type.Optional(Type.Integer({ minimum: 0, description: "index among the board's fields; default: the last" })),
    options: Type.Optional(Options),
  },
  { additionalProperties: false },
);
export type CreateCustomFieldBody = Static<typeof CreateCustomFieldBody>;

export const UpdateCustomFieldBody = UpdateOf({
  name: Name,
  type: FieldType,
  unit: Unit,
  showOnCard: Type.Boolean(),
  position: Type.Integer({ minimum: 0, description: "the field's new index among the board's fields" }),
  options: Type.Array(OptionRequest, {
    maxItems: 100,
    description: 'the whole list, in order: options left out are removed (and cleared from the cards that chose them)',
  }),
});
export type UpdateCustomFieldBody = Static<typeof UpdateCustomFieldBody>;

export const DeletedCustomField = Type.Object({
  field: CustomField,
  clearedCards: Type.Integer({ description: 'how many cards held a value of it (each changed: `__v` + 1)' }),
});

const ValueRequest = Type.Object(
  {
    field: Id,
    value: Type.Union([Type.String({ maxLength: 5000 }), Type.Number(), Type.Boolean(), Type.Array(Id, { maxItems: 100 }), Type.Null()], {
      description: "null clears the field; else the form the field's type takes (see CustomFieldValue)",
    }),
  },
  { additionalProperties: false },
);

export const SetCustomFieldValuesBody = Type.Object(
  {
    values: Type.Array(ValueRequest, { minItems: 1, maxItems: 100, description: "each a field of the card's board, at most once" }),
  },
  { additionalProperties: false },
);
export type SetCustomFieldValuesBody = Static<typeof SetCustomFieldValuesBody>;
