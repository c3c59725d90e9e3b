import { catalogue, icu } from '../i18n/messages.ts';

const name = (name: string) => ({ name });

/** The card relations' words: the card dialog's section and the card fronts' badge. */
export const relationsText = catalogue('relations', {
  relations: 'Relations',
  noRelations: 'No relations yet.',
  kinds: {
    blocks: 'Blocks',
    blocked_by: 'Blocked by',
    relates: 'Relates to',
    duplicates: 'Duplicates',
    duplicated_by: 'Duplicated by',
  },
  choose: {
    blocks: 'blocks',
    blocked_by: 'is blocked by',
    relates: 'relates to',
    duplicates: 'duplicates',
    duplicated_by: 'is duplicated by',
  },
  addRelation: 'Add relation',
  thisCard: 'This card',
  findCard: 'Card to relate',
  findCardHint: 'Type part of a card’s name; cards of every board you can open are found.',
  noCardsFound: 'No card found.',
  searching: 'Searching…',
  results: icu(
    '{n, plural, =0 {No card found.} one {# card found. Arrow keys to choose, Enter to add.} other {# cards found. Arrow keys to choose, Enter to add.}}',
    (n: number) => ({ n }),
  ),
  where: icu('{board} · {list}', (board: string, list: string) => ({ board, list })),
  done: 'Done',
  archived: 'Archived',
  remove: icu('Remove relation to {name}', name),
  cancel: 'Cancel',
  blocked: 'Blocked',
  blockedBy: icu('Blocked by {names}', (names: string) => ({ names })),
});
