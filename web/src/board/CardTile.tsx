import { combine } from '@atlaskit/pragmatic-drag-and-drop/combine';
import { draggable, dropTargetForElements } from '@atlaskit/pragmatic-drag-and-drop/element/adapter';
import { attachClosestEdge, type Edge, extractClosestEdge } from '@atlaskit/pragmatic-drag-and-drop-hitbox/closest-edge';
import { type KeyboardEvent, memo, useEffect, useRef, useState } from 'react';
import { authHeaders, type CardFace, type Label } from '../api.ts';
import { t } from '../strings.ts';
import { dueState, initials, textOn } from './filters.ts';

/** A card's face on the board: cover, name, labels and the badge row; draggable, and a drop target for cards. */
export const CardTile = memo(function CardTile({
  card,
  listId,
  labelsById,
  onKeyDown,
  onOpen,
  now,
}: {
  card: CardFace;
  listId: string;
  labelsById: ReadonlyMap<string, Label>;
  onKeyDown: (event: KeyboardEvent<HTMLElement>) => void;
  onOpen: () => void;
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
  // The card's name is its content, name first: what a screen reader says is what the eye sees.
  return (
    <div
      ref={element}
      role="button"
      tabIndex={0}
      className={`card${dragging ? ' dragging' : ''}${edge ? ` drop-${edge}` : ''}`}
      data-card-id={card._id}
      onClick={onOpen}
      onKeyDown={onKeyDown}
    >
      {card.cover ? <Cover cover={card.cover} /> : null}
      <div className="card-name">{card.name}</div>
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
      {card.dueDate || card.hasDescription || checklist.total || card.commentsCount || card.attachmentsCount || card.members.length ? (
        <div className="card-badges">
          {card.dueDate ? (
            <span className={`badge due due-${due}`}>
              <span className="visually-hidden">, {t.dueDate} </span>
              {new Date(card.dueDate).toLocaleDateString(undefined, { month: 'short', day: 'numeric' })}
              {due === 'overdue' || due === 'done' ? <span className="visually-hidden"> ({due === 'overdue' ? t.dueOverdue : t.dueDone})</span> : null}
            </span>
          ) : null}
          {card.hasDescription ? (
            <span className="badge">
              <span aria-hidden="true">≡</span>
              <span className="visually-hidden">, {t.hasDescription}</span>
            </span>
          ) : null}
          {checklist.total ? (
            <span className={`badge${checklist.completed === checklist.total ? ' done' : ''}`}>
              <span aria-hidden="true">☑ </span>
              <span className="visually-hidden">, {t.checklist(checklist.completed, checklist.total)}</span>
              <span aria-hidden="true">
                {checklist.completed}/{checklist.total}
              </span>
            </span>
          ) : null}
          {card.commentsCount ? (
            <span className="badge">
              <span aria-hidden="true">💬 {card.commentsCount}</span>
              <span className="visually-hidden">, {t.comments(card.commentsCount)}</span>
            </span>
          ) : null}
          {card.attachmentsCount ? (
            <span className="badge">
              <span aria-hidden="true">📎 {card.attachmentsCount}</span>
              <span className="visually-hidden">, {t.attachments(card.attachmentsCount)}</span>
            </span>
          ) : null}
          {card.members.length ? (
            <span className="card-members">
              <span className="visually-hidden">, {t.members}: </span>
              {card.members.map((member) =>
                member.photoUrl ? (
                  <img key={member._id} className="avatar" src={member.photoUrl} alt={member.fullName} title={member.fullName} />
                ) : (
                  <span key={member._id} className="avatar" title={member.fullName}>
                    <span aria-hidden="true">{initials(member.fullName)}</span>
                    <span className="visually-hidden">{member.fullName} </span>
                  </span>
                ),
              )}
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
