import type { Card } from '../../schemas/records.ts';
import type { Transaction } from '../../storage/database.ts';
import { type CardTableRow, setCardColumns } from '../../storage/repositories/cards.ts';
import type { ServiceContext } from '../context.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { ValidationError } from '../shared/errors.ts';
import { changeCard, changeEachCard } from './change.ts';

/**
 * Archived cards leave the board view (Get Board with Lists and Cards) and the default Get List Card,
 * keep their list and position (unarchiving puts them back where they were), and stay readable and
 * editable by id. `archivedAt` is the time of archiving: archiving an archived card keeps it.
 */
function writeArchived(trx: Transaction, card: CardTableRow, archived: boolean, at: string): Promise<void> {
  if (Boolean(Number(card.archived)) === archived) return Promise.resolve();
  return setCardColumns(trx, card.id, { archived: archived ? 1 : 0, archived_at: archived ? at : null });
}

/** The event of an (un)archiving: `card.archived` or `card.unarchived`, with whether the state changed. */
const archiveKind = (archived: boolean) => (archived ? 'card.archived' : 'card.unarchived');

function describeArchiving(card: CardTableRow, archived: boolean) {
  return { changed: Boolean(Number(card.archived)) !== archived };
}

/** Archive Card (`archived` true) and Unarchive Card (false): one change of the card either way. */
export function setCardArchived(ctx: ServiceContext, caller: Caller, cardId: string, scope: Scope, archived: boolean): Promise<Card> {
  return changeCard(ctx, caller, cardId, scope, archiveKind(archived), async (trx, card, at) => {
    await writeArchived(trx, card, archived, at);
    return describeArchiving(card, archived);
  });
}

/**
 * Archive Cards: cards of one team (the scope's `teamId`, else the team of the first card the
 * caller reaches); a card of another team fails its item (Archive Cards Multi Team spans teams).
 */
export function archiveCards(
  ctx: ServiceContext,
  caller: Caller,
  scope: Scope,
  input: { cardIds: readonly string[]; status?: boolean | undefined },
): Promise<Card[]> {
  const archived = input.status ?? true;
  let teamId = scope.teamId;
  return changeEachCard(
    ctx,
    caller,
    input.cardIds,
    'body.cardIds',
    archiveKind(archived),
    (cardId) => ({ cardId, scope }),
    (row, _cardId, at) => {
      teamId ??= row.team_id;
      if (row.team_id !== teamId) {
        throw new ValidationError('the card is in another team than the other cards; use PATCH /api/v1/cards/archived-multi-team');
      }
      return { data: describeArchiving(row, archived), write: (trx) => writeArchived(trx, row, archived, at) };
    },
  );
}

/** Archive Cards Multi Team: each item names the company and team its card is in; all or nothing. */
export function archiveCardsMultiTeam(
  ctx: ServiceContext,
  caller: Caller,
  input: { cards: readonly { cardId: string; companyId: string; teamId: string }[]; status?: boolean | undefined },
): Promise<Card[]> {
  const archived = input.status ?? true;
  return changeEachCard(
    ctx,
    caller,
    input.cards,
    'body.cards',
    archiveKind(archived),
    (item) => ({ cardId: item.cardId, scope: item }),
    (row, _item, at) => ({ data: describeArchiving(row, archived), write: (trx) => writeArchived(trx, row, archived, at) }),
  );
}
