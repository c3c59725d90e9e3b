import { Type } from 'typebox';
import { BulkItems, Id, IdOf, Name, PositionRequest } from './common.ts';
import { Card } from './records.ts';

/** Request and answer schemas of Copy Card, Copy Cards, Copy Cards Multi Team and Move Cards Multi Team. */

const KeepFlag = (what: string) => Type.Optional(Type.Boolean({ default: true, description: `copy the card's ${what} (default true)` }));

export const CopyKeep = Type.Object(
  {
    labels: KeepFlag('labels (only onto a list of the same board: labels belong to a board)'),
    members: KeepFlag('members (only those in the target team)'),
    checklists: KeepFlag('checklists with their items (item members only if in the target team)'),
    attachments: KeepFlag('live attachments (files get a copy of their bytes)'),
  },
  { additionalProperties: false, description: 'what the copy keeps of the card; a missing flag means true' },
);

export const CopyCardBody = Type.Object(
  {
    list: Id,
    name: Type.Optional(Name),
    position: Type.Optional(PositionRequest),
    keep: Type.Optional(CopyKeep),
  },
  { additionalProperties: false },
);

export const CopyCardsBody = Type.Object(
  {
    cardIds: BulkItems(Id, "cards of the target list's team, each at most once; copied to the bottom of the list in this order"),
    list: Id,
  },
  { additionalProperties: false },
);

export const MultiTeamCard = Type.Object({ cardId: Id, companyId: Id, teamId: Id }, { additionalProperties: false });

export const MultiTeamTarget = Type.Object({ companyId: Id, teamId: Id, list: IdOf('a list of the target team') }, { additionalProperties: false });

export const MultiTeamCardsBody = Type.Object(
  {
    cards: BulkItems(MultiTeamCard, 'each card at most once, with the company and team it is in; placed at the bottom of the target list in this order'),
    target: MultiTeamTarget,
  },
  { additionalProperties: false },
);

/** What a card lost on its way to another board or team, because it does not exist or belong there. */
export const DroppedParts = Type.Object(
  {
    cardId: IdOf('the answered card: the moved card, or the copy'),
    labels: Type.Array(Id, { description: 'labels of the old board' }),
    members: Type.Array(Id, { description: 'card members who are not in the target team' }),
    checklistItemMembers: Type.Array(Type.Object({ checklistItem: Id, members: Type.Array(Id) }), {
      description: 'checklist-item members who are not in the target team, by item of the answered card',
    }),
    customFields: Type.Array(Id, {
      description: 'custom fields of the old board whose values found no field of the same name and type (or option, or team member) on the new one',
    }),
  },
  { additionalProperties: false },
);

export const CopyCardAnswer = Type.Object({
  message: Type.String(),
  card: Card,
  dropped: DroppedParts,
});

export const BulkCardsAnswer = Type.Object({
  message: Type.String(),
  cards: Type.Array(Card, { description: 'the copies, or the moved cards, in request order' }),
  dropped: Type.Array(DroppedParts, { description: 'one entry per answered card that lost anything; empty when none did' }),
});
