import { combine } from '@atlaskit/pragmatic-drag-and-drop/combine';
import { draggable, dropTargetForElements } from '@atlaskit/pragmatic-drag-and-drop/element/adapter';
import { attachClosestEdge, type Edge, extractClosestEdge } from '@atlaskit/pragmatic-drag-and-drop-hitbox/closest-edge';
import { AlignLeft, Ban, Clock, MessageSquare, Paperclip, SquareCheck } from 'lucide-react';
import { type KeyboardEvent, memo, useEffect, useRef, useState } from 'react';
import { authHeaders, type CardFace, type Label, type Member } from '../api.ts';
import { type CustomField, chosenOptions, valueText } from '../fields/fields.ts';
import { formatList } from '../i18n/messages.ts';
import { relationsText } from '../relations/strings.ts';
import { t } from '../strings.ts';
import { Avatar } from '../ui/Avatar.tsx';
import { dayInWords, daysFromToday, exactTime } from '../ui/relativeTime.ts';
import { dueState, textOn } from './filters.ts';
import { templatesText } from './templates/strings.ts';
import './templates/templates.css';

/** The due badge's words: "tomorrow", "3 days overdue", or the date once complete or far off. */
function dueWords(dueDate: string, due: ReturnType<typeof dueState>, now: number): string {
  if (due === 'overdue') {
    const days = -daysFromToday(dueDate, now);
    return days >= 1 ? t.daysOverdue(days) : t.dueOverdue;
  }
  return dayInWords(dueDate, now);
}

/** What faces show beyond the card itself: the fields chosen for card fronts, and the people a person field names. */
export interface FaceContext {
  fields: readonly CustomField[];
  people: ReadonlyMap<string, Member>;
  /** The names of the open cards that block each card (card id → names); a card not blocked has no entry. */
  blockers: ReadonlyMap<string, readonly string[]>;
}

/** The chosen fields the card holds a value of, each as "name: value" (a select's options in their colours). */
function FieldBadges({ card, faces }: { card: CardFace; faces: FaceContext }) {
  if (!faces.fields.length || !card.customFields.length) return null;
  const values = new Map(card.customFields.map((one) => [one.field, one.value]));
  const shown = faces.fields.flatMap((field) => {
    const value = values.get(field._id);
    const text = value === undefined ? '' : valueText(field, value, faces.people);
    return text && value !== undefined ? [{ field, value, text }] : [];
  });
  if (!shown.length) return null;
  return (
    <div className="card-fields">
      {shown.map(({ field, value, text }) => (
        <span key={field._id} className="field-badge" title={`${field.name}: ${text}`}>
          <span className="visually-hidden">, </span>
          <span className="field-badge-name">{field.name}: </span>
          {field.type === 'select' || field.type === 'multiselect' ? (
            chosenOptions(field, value).map((option) => (
              <span key={option._id} className="option-dot-text">
                <span className="option-dot" style={{ background: option.color.hex }} aria-hidden="true" />
                {option.name}{' '}
              </span>
            ))
          ) : (
            <span>{text}</span>
          )}
        </span>
      ))}
    </div>
  );
}

/**
 * A card's face on the board: cover, name, labels and the badge row; draggable, and a drop target for cards.
 * Its handlers are the board's own, with the card's place: a face draws again only when what it shows
 * (or its place) changed, not whenever the board page does.
 */
export const CardTile = memo(function CardTile({
  card,
  listId,
  listIndex,
  cardIndex,
  labelsById,
  faces,
  onCardKey,
  openCard,
  now,
}: {
  card: CardFace;
  listId: string;
  listIndex: number;
  cardIndex: number;
  labelsById: ReadonlyMap<string, Label>;
  faces: FaceContext;
  onCardKey: (event: KeyboardEvent<HTMLElement>, listIndex: number, cardIndex: number, card: CardFace) => void;
  openCard: (cardId: string) => void;
  now: number;
}) {
  const element = useRef<HTMLDivElement>(null);
  const [edge, setEdge] = useState<Edge | null>(null);
  const [dragging, setDragging] = useState(false);
  useEffect(() => {
    const node = element.current;
    if (!node) return;
    return combine(
      draggable({
        element: node,
        getInitialData: () => ({ type: 'card', cardId: card._id, listId }),
        onDragStart: () => setDragging(true),
        onDrop: () => setDragging(false),
      }),
      dropTargetForElements({
        element: node,
        canDrop: ({ source }) => source.data.type === 'card',
        getData: ({ input, element: target }) =>
          attachClosestEdge({ type: 'card', cardId: card._id, listId }, { input, element: target, allowedEdges: ['top', 'bottom'] }),
        onDrag: ({ self, source }) => setEdge(source.data.cardId === card._id ? null : extractClosestEdge(self.data)),
        onDragLeave: () => setEdge(null),
        onDrop: () => setEdge(null),
      }),
    );
  }, [card._id, listId]);
  const due = dueState(card, now);
  // a label deleted meanwhile is gone from the board's labels before the card's face is read again
  const labels = card.labels.flatMap((id) => labelsById.get(id) ?? []);
  const checklist = card.allChecklistItemsCount;
  const blockers = faces.blockers.get(card._id);
  // The card's name is its content, name first: what a screen reader says is what the eye sees.
  return (
    <div
      ref={element}
      role="button"
      tabIndex={0}
      className={`card${dragging ? ' dragging' : ''}${edge ? ` drop-${edge}` : ''}`}
      data-card-id={card._id}
      onClick={() => openCard(card._id)}
      onKeyDown={(event) => onCardKey(event, listIndex, cardIndex, card)}
    >
      {card.cover ? <Cover cover={card.cover} /> : null}
      <div className="card-name">{card.name}</div>
      {card.isTemplate ? (
        <div className="card-template">
          <span className="visually-hidden">, </span>
          <span className="badge template-badge">{templatesText.badge}</span>
        </div>
      ) : null}
      {labels.length ? (
        <div className="card-labels">
          <span className="visually-hidden">, {t.labels}: </span>
          {labels.map((label) => (
            <span key={label._id} className="label-chip" style={{ background: label.color.hex, color: textOn(label.color.hex) }}>
              {label.name || label.color.name}{' '}
            </span>
          ))}
        </div>
      ) : null}
      <FieldBadges card={card} faces={faces} />
      {blockers || card.dueDate || card.hasDescription || checklist.total || card.commentsCount || card.attachmentsCount || card.members.length ? (
        <div className="card-badges">
          {blockers ? (
            <span className="badge blocked" title={relationsText.blockedBy(formatList(blockers))}>
              <Ban size={14} aria-hidden="true" />
              <span aria-hidden="true">{relationsText.blocked}</span>
              <span className="visually-hidden">, {relationsText.blockedBy(formatList(blockers))}</span>
            </span>
          ) : null}
          {card.dueDate ? (
            <span className={`badge due due-${due}`} title={exactTime(card.dueDate)}>
              <Clock size={14} aria-hidden="true" />
              <span className="visually-hidden">
                , {t.dueDate} {exactTime(card.dueDate)},{' '}
              </span>
              <span aria-hidden={due === 'overdue' ? undefined : true}>{dueWords(card.dueDate, due, now)}</span>
              {due === 'done' ? <span className="visually-hidden"> ({t.dueDone})</span> : null}
            </span>
          ) : null}
          {card.hasDescription ? (
            <span className="badge" title={t.hasDescription}>
              <AlignLeft size={14} aria-hidden="true" />
              <span className="visually-hidden">, {t.hasDescription}</span>
            </span>
          ) : null}
          {checklist.total ? (
            <span className={`badge${checklist.completed === checklist.total ? ' done' : ''}`}>
              <SquareCheck size={14} aria-hidden="true" />
              <span className="visually-hidden">, {t.checklist(checklist.completed, checklist.total)}</span>
              <span aria-hidden="true">
                {checklist.completed}/{checklist.total}
              </span>
            </span>
          ) : null}
          {card.commentsCount ? (
            <span className="badge">
              <MessageSquare size={14} aria-hidden="true" />
              <span aria-hidden="true">{card.commentsCount}</span>
              <span className="visually-hidden">, {t.comments(card.commentsCount)}</span>
            </span>
          ) : null}
          {card.attachmentsCount ? (
            <span className="badge">
              <Paperclip size={14} aria-hidden="true" />
              <span aria-hidden="true">{card.attachmentsCount}</span>
              <span className="visually-hidden">, {t.attachments(card.attachmentsCount)}</span>
            </span>
          ) : null}
          {card.members.length ? (
            <span className="card-members">
              <span className="visually-hidden">, {t.members}: </span>
              {card.members.map((member) => (
                <Avatar key={member._id} person={member} />
              ))}
            </span>
          ) : null}
        </div>
      ) : null}
    </div>
  );
});

/** Covers read as files: the page's own requests carry its credentials, which an <img> of an API key session would not. */
const coverImages = new Map<string, Promise<string | null>>();
const COVER_IMAGES_KEPT = 200;

function coverImage(url: string): Promise<string | null> {
  let image = coverImages.get(url);
  if (!image) {
    image = fetch(url, { headers: authHeaders(), credentials: 'same-origin' })
      .then(async (response) => (response.ok ? URL.createObjectURL(await response.blob()) : null))
      .catch(() => null);
    coverImages.set(url, image);
    if (coverImages.size > COVER_IMAGES_KEPT) {
      const [oldest, kept] = coverImages.entries().next().value as [string, Promise<string | null>];
      coverImages.delete(oldest);
      void kept.then((src) => src && URL.revokeObjectURL(src));
    }
  }
  return image;
}

/** A card's cover: a colour band, or an image (a URL of this server, such as one of the card's attachments). */
function Cover({ cover }: { cover: string }) {
  const isImage = /^\/(?!\/)/.test(cover) || cover.startsWith(`${window.location.origin}/`);
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    if (!isImage) return;
    let live = true;
    void coverImage(cover).then((found) => live && setSrc(found));
    return () => {
      live = false;
    };
  }, [cover, isImage]);
  if (!isImage) return CSS.supports('color', cover) ? <div className="card-cover card-cover-colour" style={{ background: cover }} /> : null;
  return src ? <img className="card-cover" src={src} alt="" /> : <div className="card-cover card-cover-loading" />;
}
