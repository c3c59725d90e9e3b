import type { components } from '@taskboard/client';
import type { Card } from '../../api.ts';

/** The card a recurrence makes: a recurrence made from a card's dialog starts as that card. */
export type LikeCard = components['schemas']['Recurrence']['card'];

export const likeCard = (card: Card): LikeCard => ({
  name: card.name,
  description: card.description,
  labels: card.labels.map((label) => label._id),
  members: card.members.map((member) => member._id),
});
