import type { Board, LabelColor, List } from '../../schemas/records.ts';
import type { BoardRow } from '../../storage/repositories/boards.ts';
import type { LabelColorRow } from '../../storage/repositories/labels.ts';
import type { ListRow } from '../../storage/repositories/lists.ts';
import { madeInTeam } from '../shared/records.ts';

/** Row → API record mappings for boards, lists and label colours (labels: `toLabel` in cards/records). */

function archivedMark(row: { archived: number; archived_at: string | null }) {
  return { status: Boolean(Number(row.archived)), at: row.archived_at };
}

export function toBoard(row: BoardRow): Board {
  return {
    ...madeInTeam(row),
    name: row.name,
    description: row.description,
    archived: archivedMark(row),
  };
}

export function toList(row: ListRow): List {
  return {
    ...madeInTeam(row),
    name: row.name,
    position: row.position,
    archived: archivedMark(row),
    board: row.board_id,
  };
}

export function toLabelColor(row: LabelColorRow): LabelColor {
  return { _id: row.id, name: row.name, hex: row.hex };
}
