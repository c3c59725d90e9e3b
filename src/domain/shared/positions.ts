/**
 * Positions order lists, cards, checklists and items. Requests name a place as an index in the
 * target collection or "top"/"bottom"; records carry a number that sorts the collection. New numbers
 * go between the neighbours, so one move rewrites one row; when two neighbours get too close the
 * whole collection is renumbered, keeping its order.
 */
export type PositionRequest = number | 'top' | 'bottom';

export const POSITION_STEP = 1024;
const MIN_GAP = 1e-6;

export interface Placement {
  position: number;
  /** New positions for the siblings, in their order, when they had to be renumbered; else null. */
  renumbered: number[] | null;
}

/**
 * Where an item goes among `siblings` (their positions in ascending order, the item itself left out).
 * An index past the end means the bottom.
 */
export function place(siblings: readonly number[], request: PositionRequest = 'bottom'): Placement {
  const index = request === 'top' ? 0 : request === 'bottom' ? siblings.length : Math.min(Math.max(0, Math.trunc(request)), siblings.length);
  const before = index > 0 ? siblings[index - 1] : undefined;
  const after = index < siblings.length ? siblings[index] : undefined;
  if (before === undefined && after === undefined) return { position: POSITION_STEP, renumbered: null };
  if (after === undefined) return { position: (before as number) + POSITION_STEP, renumbered: null };
  if (before === undefined) {
    return after - POSITION_STEP > -Number.MAX_SAFE_INTEGER ? { position: after - POSITION_STEP, renumbered: null } : renumber(siblings.length, index);
  }
  if (after - before > MIN_GAP * 2) return { position: (before + after) / 2, renumbered: null };
  return renumber(siblings.length, index);
}

/** Spreads `count` siblings evenly, leaving a slot at `index` for the placed item. */
function renumber(count: number, index: number): Placement {
  const renumbered = Array.from({ length: count }, (_, i) => (i < index ? i + 1 : i + 2) * POSITION_STEP);
  return { position: (index + 1) * POSITION_STEP, renumbered };
}

/** An item of a collection and its position: a sibling, or a sibling's new position. */
export interface SiblingPosition {
  id: string;
  position: number;
}

/**
 * Places an item at `request` among `siblings` (in order, the item itself left out) and answers its
 * position. When the siblings have to be spread again, `renumber` gets all their new positions in
 * one call and writes them, each as a change of that sibling; one call, so that the caller can
 * take the siblings' locks in its own order (cards: see src/domain/access/access.ts).
 */
export async function placeAmong(
  siblings: readonly SiblingPosition[],
  request: PositionRequest | undefined,
  renumber: (moves: SiblingPosition[]) => Promise<unknown>,
): Promise<number> {
  const placement = place(
    siblings.map((s) => s.position),
    request,
  );
  const renumbered = placement.renumbered;
  if (renumbered) await renumber(siblings.map((s, i) => ({ id: s.id, position: renumbered[i] as number })));
  return placement.position;
}
