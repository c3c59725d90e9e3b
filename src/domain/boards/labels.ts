import type { Label, LabelColor } from '../../schemas/records.ts';
import * as labels from '../../storage/repositories/labels.ts';
import { recordCardChanges } from '../cards/recorder.ts';
import { toLabel } from '../cards/records.ts';
import type { ServiceContext } from '../context.ts';
import { requireAccess } from '../access/access.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { NotFoundError, ValidationError } from '../shared/errors.ts';
import { newId, nowIso } from '../shared/ids.ts';
import { inTransaction } from '../shared/transaction.ts';
import type { Executor } from '../../storage/database.ts';
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

export async function createLabel(
  ctx: ServiceContext,
  caller: Caller,
  boardId: string,
  input: { name: string; color: string },
  scope: Scope,
): Promise<Label> {
  const board = await requireAccess(ctx.db, caller, { kind: 'board', id: boardId, scope });
  const color = await requireColor(ctx.db, input.color);
  const now = nowIso();
  const row = {
    id: newId(),
    company_id: board.company_id,
    team_id: board.team_id,
    board_id: board.id,
    name: input.name.trim(),
    color_id: color.id,
    creator_id: caller.userId,
    created_at: now,
    updated_at: now,
    version: 0,
  };
  await labels.insertLabel(ctx.db, row);
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
  await labels.updateLabel(ctx.db, label.id, change, nowIso());
  const updated = await labels.findLabelById(ctx.db, label.id);
  if (!updated) throw new NotFoundError('Label');
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
    await recordCardChanges(trx, [...carriers], { caller, kind: 'card.label.deleted', at }, 'skip');
    const removed = await labels.removeLabelFromCards(trx, label.id);
    await recordCardChanges(trx, removed.filter((cardId) => !carriers.has(cardId)), { caller, kind: 'card.label.deleted', at }, 'skip');
    // a concurrent delete got there first: roll back, answer as if it had been gone already
    if (!(await labels.deleteLabel(trx, label.id))) throw new NotFoundError('Label');
  });
  return toLabel(label);
}
