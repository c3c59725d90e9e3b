import type { Label, LabelColor } from '../../schemas/records.ts';
import type { Executor } from '../../storage/database.ts';
import { findBoardById, lockBoard } from '../../storage/repositories/boards.ts';
import * as labels from '../../storage/repositories/labels.ts';
import { requireAccess } from '../access/access.ts';
import { lockCardRows } from '../cards/locks.ts';
import { recordBoardLabelsChange, recordCardChange } from '../cards/recorder.ts';
import { toLabel } from '../cards/records.ts';
import type { ServiceContext } from '../context.ts';
import { boardSubject, changedFields, recordEvent } from '../events/record.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { NotFoundError, ValidationError } from '../shared/errors.ts';
import { newId, nowIso } from '../shared/ids.ts';
import { isExpected, requireExpectedVersion } from '../shared/preconditions.ts';
import { newMade, onBoard } from '../shared/records.ts';
import { inTransaction } from '../shared/transaction.ts';
import { toLabelColor } from './records.ts';

/** The fixed palette labels take their colour from. */
export async function listLabelColors(ctx: ServiceContext): Promise<LabelColor[]> {
  return (await labels.listLabelColors(ctx.db)).map(toLabelColor);
}

export async function listBoardLabels(ctx: ServiceContext, caller: Caller, boardId: string, scope: Scope): Promise<Label[]> {
  const board = await requireAccess(ctx.db, caller, { kind: 'board', id: boardId, scope });
  return (await labels.findLabelsOfBoard(ctx.db, board.id)).map(toLabel);
}

/** The palette colour; an id that is not in the palette is a bad request field, not a missing resource. */
async function requireColor(db: Executor, colorId: string): Promise<labels.LabelColorRow> {
  const color = await labels.findLabelColor(db, colorId);
  if (!color) {
    throw new ValidationError(`Invalid request: body.color is not a label colour (see GET /api/v1/label-colors)`, [
      { field: 'body.color', message: 'is not a label colour; see GET /api/v1/label-colors' },
    ]);
  }
  return color;
}

export async function createLabel(ctx: ServiceContext, caller: Caller, boardId: string, input: { name: string; color: string }, scope: Scope): Promise<Label> {
  const board = await requireAccess(ctx.db, caller, { kind: 'board', id: boardId, scope });
  const color = await requireColor(ctx.db, input.color);
  const now = nowIso();
  const row = { ...newMade(newId(), caller.userId, now), ...onBoard(board), name: input.name.trim(), color_id: color.id };
  await inTransaction(ctx, async (trx) => {
    // If-Match on the board: compared under the board's lock (what guards its lists and labels)
    if (isExpected(caller, 'board', board.id)) {
      await lockBoard(trx, board.id);
      requireExpectedVersion(trx, caller, 'board', board.id, (await findBoardById(trx, board.id))?.version ?? -1);
    }
    await labels.insertLabel(trx, row);
    recordEvent(trx, caller, 'label.created', boardSubject(board), { label: row.id, name: row.name, color: color.id }, now);
  });
  // the palette is fixed: the colour checked above is the one the label shows
  return toLabel({ ...row, color_name: color.name, color_hex: color.hex });
}

/** Renames and/or recolours a label; its `__v` grows by one. */
export async function updateLabel(
  ctx: ServiceContext,
  caller: Caller,
  labelId: string,
  input: { name?: string | undefined; color?: string | undefined },
  scope: Scope,
): Promise<Label> {
  const label = await requireAccess(ctx.db, caller, { kind: 'label', id: labelId, scope });
  if (input.color !== undefined) await requireColor(ctx.db, input.color);
  const change: { name?: string; color_id?: string } = {};
  if (input.name !== undefined) change.name = input.name.trim();
  if (input.color !== undefined) change.color_id = input.color;
  const updated = await inTransaction(ctx, async (trx) => {
    const at = nowIso();
    // cards of the board show the label: views stored before stop counting (the board's lock, then the label's)
    await recordBoardLabelsChange(trx, label.board_id);
    // the update takes the label's lock; If-Match is compared with the revision it replaced
    const version = await labels.updateLabel(trx, label.id, change, at);
    if (version !== undefined) requireExpectedVersion(trx, caller, 'label', label.id, version - 1);
    const updated = await labels.findLabelById(trx, label.id);
    // deleted between the check and the write: nothing changed, no event
    if (!updated) throw new NotFoundError('Label');
    const before = { name: label.name, color: label.color_id };
    const after = { name: updated.name, color: updated.color_id };
    recordEvent(trx, caller, 'label.updated', boardSubject(label), { label: label.id, ...changedFields(before, after) }, at);
    return updated;
  });
  return toLabel(updated);
}

/**
 * Deletes a label and takes it off every card that carried it, in one transaction; each of those
 * cards changes (`__v` + 1). Answers the label as it was.
 */
export async function deleteLabel(ctx: ServiceContext, caller: Caller, labelId: string, scope: Scope): Promise<Label> {
  const label = await requireAccess(ctx.db, caller, { kind: 'label', id: labelId, scope });
  await inTransaction(ctx, async (trx) => {
    // The lock rule (access/access.ts): the cards that carry the label first, in id order, then their
    // links to it. A card that took the label meanwhile is locked (and changed) after the others:
    // out of order, but rare, and inTransaction runs the request again if that ever deadlocks.
    const at = nowIso();
    const carriers = new Set(await labels.cardIdsWithLabel(trx, label.id));
    const changed = await lockCardRows(trx, [...carriers], 'skip');
    const removed = await labels.removeLabelFromCards(trx, label.id);
    const late = await lockCardRows(
      trx,
      removed.filter((cardId) => !carriers.has(cardId)),
      'skip',
    );
    // each card that carried it loses it, as a toggle would take it off
    const change = { caller, kind: 'card.labels.toggled', at, data: { added: [], removed: [label.id], labelDeleted: true } } as const;
    for (const card of [...changed.values(), ...late.values()]) await recordCardChange(trx, card, change);
    // a concurrent delete got there first: roll back, answer as if it had been gone already
    const version = await labels.deleteLabel(trx, label.id);
    if (version === undefined) throw new NotFoundError('Label');
    requireExpectedVersion(trx, caller, 'label', label.id, version);
    recordEvent(
      trx,
      caller,
      'label.deleted',
      boardSubject(label),
      { label: label.id, name: label.name, cards: [...changed.keys(), ...late.keys()].sort() },
      at,
    );
  });
  return toLabel(label);
}
