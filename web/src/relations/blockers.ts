/** What the rule reads of a card's face, and of a relation of Get Board Relations (kept structural: the unit tests load this file alone). */
interface FaceState {
  name: string;
  complete: { status: boolean };
  archived: { status: boolean };
}
interface RelationEnd {
  _id: string;
  name: string;
  board: string;
  open: boolean;
}
interface Relation {
  kind: string;
  from: RelationEnd;
  to: RelationEnd;
}

/**
 * The open cards that block each card of the board, by name. A blocker on this board is judged by its
 * face as the page shows it now (live); one elsewhere by the relations' read. A blocker whose face is
 * not on the page is archived (or not read yet): the read decides.
 */
export function openBlockers(relations: readonly Relation[] | undefined, boardId: string, faces: ReadonlyMap<string, FaceState>): Map<string, string[]> {
  const blocked = new Map<string, string[]>();
  for (const relation of relations ?? []) {
    if (relation.kind !== 'blocks' || relation.to.board !== boardId) continue;
    const face = relation.from.board === boardId ? faces.get(relation.from._id) : undefined;
    const open = face ? !face.complete.status && !face.archived.status : relation.from.open;
    if (!open) continue;
    const names = blocked.get(relation.to._id) ?? [];
    names.push(face?.name ?? relation.from.name);
    blocked.set(relation.to._id, names);
  }
  return blocked;
}
