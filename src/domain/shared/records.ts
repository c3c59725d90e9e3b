/** The mapping pieces every API record shares (see `Stamps` and `InTeam` in src/schemas/records.ts). */

/** When the record was made and last changed, and its revision (`__v`). */
export function stamps(row: { created_at: string; updated_at: string; version: number }) {
  return { createdAt: row.created_at, updatedAt: row.updated_at, __v: row.version };
}

/** The tenant and team the record belongs to. */
export function inTeam(row: { company_id: string; team_id: string }) {
  return { company: row.company_id, team: row.team_id };
}

/** What every record someone made shares: its id, its creator and its stamps. */
export function made(row: { id: string; creator_id: string; created_at: string; updated_at: string; version: number }) {
  return { _id: row.id, creator: row.creator_id, ...stamps(row) };
}

/** A record made in a team: `made` and `inTeam`. */
export function madeInTeam(row: {
  id: string;
  creator_id: string;
  company_id: string;
  team_id: string;
  created_at: string;
  updated_at: string;
  version: number;
}) {
  return { ...made(row), ...inTeam(row) };
}

/** The row side of `made`: the columns a new record starts with (its first revision is 0). */
export function newMade(id: string, creatorId: string, at: string) {
  return { id, creator_id: creatorId, created_at: at, updated_at: at, version: 0 };
}

/** The columns that place a new record on a board: the board's tenant and team, and the board. */
export function onBoard(board: { id: string; company_id: string; team_id: string }) {
  return { company_id: board.company_id, team_id: board.team_id, board_id: board.id };
}

/** The columns that place a new record on a card: the card's tenant and team, and the card. */
export function onCard(card: { id: string; company_id: string; team_id: string }) {
  return { company_id: card.company_id, team_id: card.team_id, card_id: card.id };
}

/** How boards and lists start: neither archived nor deleted. */
export const LIVE = { archived: 0 as const, archived_at: null, deleted_at: null };
