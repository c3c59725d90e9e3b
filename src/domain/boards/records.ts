import type { Board, LabelColor, List } from '../../schemas/records.ts';
import type { BoardRow } from '../../storage/repositories/boards.ts';
import type { LabelColorRow } from '../../storage/repositories/labels.ts';
import type { ListRow } from '../../storage/repositories/lists.ts';
import { inTeam, stamps } from '../shared/records.ts';

/** Row → API record mappings for boards, lists and label colours (labels: `toLabel` in cards/records). */

export function toBoard(row: BoardRow): Board {
  return {
    _id: row.id,
    name: row.name,
    creator: row.creator_id,
    ...inTeam(row),
    ...stamps(row),
  };
}

export function toList(row: ListRow): List {
  return {
    _id: row.id,
    name: row.name,
    position: row.position,
    creator: row.creator_id,
    ...inTeam(row),
    board: row.board_id,
    ...stamps(row),
  };
}

export function toLabelColor(row: LabelColorRow): LabelColor {
  return { _id: row.id, name: row.name, hex: row.hex };
}
