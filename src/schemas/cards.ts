import { Type } from 'typebox';
import { BulkItems, CardDescription, Id, Name, PositionRequest, ScopeQuery } from './common.ts';

export const CardParams = Type.Object({ cardId: Id }, { additionalProperties: false });
export const CardAttachmentParams = Type.Object({ cardId: Id, attachmentId: Id }, { additionalProperties: false });

export const DateOrNull = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const CreateCardBody = Type.Object(
  {
    list: Id,
    name: Name,
    position: Type.Optional(PositionRequest),
    description: Type.Optional(CardDescription),
    startDate: Type.Optional(DateOrNull),
    dueDate: Type.Optional(DateOrNull),
  },
  { additionalProperties: false },
);

export const ToggleLabelsBody = Type.Object({ labels: BulkItems(Id, "label ids of the card's board") }, { additionalProperties: false });

export const RenameBody = Type.Object({ name: Name }, { additionalProperties: false });

export const LinkBody = Type.Object(
  {
    url: Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 }),
    name: Type.Optional(Name),
  },
  { additionalProperties: false },
);

export { ScopeQuery };

export const CardWatchAnswer = Type.Object({
  message: Type.String(),
  watching: Type.Boolean({ description: 'whether the caller watches the card (is told of it as its members are)' }),
});
