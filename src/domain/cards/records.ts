import type { Attachment, Card, Cheer, Label, Member } from '../../schemas/records.ts';
import type { Row } from '../../storage/database.ts';
import type { CardRow } from '../../storage/repositories/card-records.ts';
import { toCustomFieldValues } from '../fields/records.ts';
import { inTeam, madeInTeam, stamps } from '../shared/records.ts';

/** Row → API record mappings for the card and the parts it embeds. */

type JsonFlag = number | boolean;
const flag = (value: JsonFlag) => value === 1 || value === true;

export function toMember(user: { id: string; full_name: string; photo_url: string }): Member {
  return { _id: user.id, fullName: user.full_name, photoUrl: user.photo_url };
}

export type CheerRow = Omit<Row<'cheers'>, 'is_notified'> & { is_notified: JsonFlag; creator_photo_url: string };

export function toCheer(row: CheerRow): Cheer {
  return {
    _id: row.id,
    content: row.content,
    creator: { _id: row.creator_id, photoUrl: row.creator_photo_url },
    receiver: row.receiver_id,
    primaryParent: { id: row.primary_id, type: row.primary_type },
    secondaryParent: { id: row.secondary_id ?? row.card_id, type: row.secondary_type ?? 'card' },
    isNotified: flag(row.is_notified),
    comment: row.comment_id ?? '',
    card: row.card_id,
    featureType: row.feature_type,
    ...inTeam(row),
    ...stamps(row),
    notification: row.notification,
  };
}

export interface LabelRow {
  id: string;
  name: string;
  creator_id: string;
  company_id: string;
  team_id: string;
  board_id: string;
  created_at: string;
  updated_at: string;
  version: number;
  color_id: string;
  color_name: string;
  color_hex: string;
}

export function toLabel(row: LabelRow): Label {
  return {
    ...madeInTeam(row),
    name: row.name,
    color: { _id: row.color_id, name: row.color_name, hex: row.color_hex },
    board: row.board_id,
  };
}

export type AttachmentRow = Omit<Row<'attachments'>, 'is_deleted'> & {
  is_deleted: JsonFlag;
  creator_full_name: string;
  creator_photo_url: string;
};

/** Where a file attachment's bytes are served; links carry their own URL. */
export function attachmentUrl(row: Pick<AttachmentRow, 'id' | 'card_id' | 'kind' | 'link_url'>): string {
  return row.kind === 'link' && row.link_url ? row.link_url : `/api/v1/cards/${row.card_id}/attachments/${row.id}/file`;
}

export function toAttachment(row: AttachmentRow, seen: string[], cheers: Cheer[]): Attachment {
  return {
    _id: row.id,
    name: row.name,
    url: attachmentUrl(row),
    creator: { _id: row.creator_id, fullName: row.creator_full_name, photoUrl: row.creator_photo_url },
    type: row.kind,
    mimeType: row.mime_type,
    size: Number(row.size_bytes),
    originalName: row.original_name,
    isDeleted: flag(row.is_deleted),
    ...inTeam(row),
    card: row.card_id,
    checklistItem: row.checklist_item_id,
    seen,
    cheers,
    ...stamps(row),
  };
}

/** The attachment records of loaded rows, each with the users who have seen it and its cheers. */
export function toAttachments(rows: unknown[], seen: { attachment_id: string; user_id: string }[], cheersOf: (attachmentId: string) => Cheer[]): Attachment[] {
  return (rows as AttachmentRow[]).map((a) =>
    toAttachment(
      a,
      seen.filter((s) => s.attachment_id === a.id).map((s) => s.user_id),
      cheersOf(a.id),
    ),
  );
}

/**
 * The revision of how a card's record is made from its rows (`toCard`, the parts' mappings above,
 * and the card query of src/storage/repositories/card-records.ts). Raise it with any change that makes
 * the same rows show differently, or stores a view differently: stored card views (./view.ts) of an
 * older revision stop counting. 2: a view is stored with its entity tag before the record. 3: the
 * card's custom field values.
 */
export const CARD_RECORD_REVISION = 3;

export function toCard(row: CardRow): Card {
  const cheers = (row.cheers as CheerRow[]).map(toCheer);
  const cardCheers = cheers.filter((c) => c.primaryParent.type === 'card');
  const attachments = toAttachments(row.attachments, row.attachmentSeen, (id) =>
    cheers.filter((c) => c.primaryParent.type === 'attachment' && c.primaryParent.id === id),
  );
  return {
    ...madeInTeam(row),
    name: row.name,
    description: row.description,
    cover: row.cover,
    position: row.position,
    startDate: row.start_date,
    dueDate: row.due_date,
    members: row.members.map(toMember),
    checklists: row.checklistIds,
    allChecklistItemsCount: { completed: row.itemsCompleted, total: row.itemsTotal },
    cheers: cardCheers,
    comments: row.commentIds,
    labels: (row.labels as LabelRow[]).map(toLabel),
    attachments,
    complete: {
      status: flag(row.complete_status),
      type: row.complete_type,
      setAt: row.complete_set_at ?? row.created_at,
      updatedAt: row.complete_updated_at ?? row.created_at,
    },
    isNotified: {
      startOneHour: flag(row.notified_start_one_hour),
      startOneDay: flag(row.notified_start_one_day),
      dueOneHour: flag(row.notified_due_one_hour),
      dueOneDay: flag(row.notified_due_one_day),
    },
    archived: { status: flag(row.archived) },
    isPublic: flag(row.is_public),
    isTemplate: flag(row.is_template),
    workload: { value: row.workload_value, measurement: row.workload_measurement },
    board: row.board_id,
    list: row.list_id,
    seen: row.seen,
    customFields: toCustomFieldValues(row.fieldValues),
  };
}
