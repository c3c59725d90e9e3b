import { combine } from '@atlaskit/pragmatic-drag-and-drop/combine';
import { draggable, dropTargetForElements } from '@atlaskit/pragmatic-drag-and-drop/element/adapter';
import { autoScrollForElements } from '@atlaskit/pragmatic-drag-and-drop-auto-scroll/element';
import { attachClosestEdge, type Edge, extractClosestEdge } from '@atlaskit/pragmatic-drag-and-drop-hitbox/closest-edge';
import { useVirtualizer } from '@tanstack/react-virtual';
import { Archive, ArrowLeft, ArrowRight, MoreHorizontal, Repeat } from 'lucide-react';
import { type KeyboardEvent, memo, startTransition, useEffect, useRef, useState } from 'react';
import type { CardFace, Label } from '../api.ts';
import { t } from '../strings.ts';
import { Menu } from '../ui/Menu.tsx';
import { CardTile, type FaceContext } from './CardTile.tsx';
import { CardComposer, type ComposerTemplate } from './composers.tsx';
import { recurrencesText } from './recurrences/strings.ts';
import type { BoardActions, ListView } from './store.ts';

/** Lists far outside the viewport render no cards (a 5,000-card board keeps a few hundred elements). */
const LIST_RENDER_MARGIN = '400px';

/** The open lists' scroll helpers, so keyboard focus can reach a card the virtualizer has not rendered. */
export type Scrollers = Map<string, (index: number) => void>;

/**
 * Whether the element is within `margin` of the viewport (lists far off screen skip their cards). A
 * list's cards are drawn in a transition: React renders them in slices of a few milliseconds, so the
 * board's first drawing of its cards never holds the page (a phone's input) for long.
 */
function useNear(ref: React.RefObject<HTMLElement | null>, margin: string): boolean {
  const [near, setNear] = useState(false);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const observer = new IntersectionObserver(
      (entries) => {
        const next = entries.some((entry) => entry.isIntersecting);
        // a list on screen shows its cards at once (the page's largest paint); the others in a transition
        const onScreen = entries.some((entry) => entry.boundingClientRect.right > 0 && entry.boundingClientRect.left < window.innerWidth);
        if (next && onScreen) setNear(true);
        else startTransition(() => setNear(next));
      },
      { rootMargin: `0px ${margin}` },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [ref, margin]);
  return near;
}

interface ListProps {
  list: ListView;
  cards: CardFace[];
  listIndex: number;
  listCount: number;
  actions: BoardActions;
  onCardKey: (event: KeyboardEvent<HTMLElement>, listIndex: number, cardIndex: number, card: CardFace) => void;
  openCard: (cardId: string) => void;
  scrollers: Scrollers;
  composers: Map<string, () => void>;
  labelsById: ReadonlyMap<string, Label>;
  faces: FaceContext;
  now: number;
  /** Opens the recurring cards' editor for this list. */
  onRecur: (listId: string) => void;
  /** The board's template cards, offered by the composer. */
  templates: readonly ComposerTemplate[];
  /** A filter is on: `cards` are the list's cards that match it. */
  filtering: boolean;
}

export const ListColumn = memo(function ListColumn({
  list,
  cards,
  listIndex,
  listCount,
  actions,
  onCardKey,
  openCard,
  scrollers,
  composers,
  labelsById,
  faces,
  now,
  onRecur,
  templates,
  filtering,
}: ListProps) {
  const section = useRef<HTMLElement>(null);
  const header = useRef<HTMLDivElement>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const near = useNear(section, LIST_RENDER_MARGIN);
  const [edge, setEdge] = useState<Edge | null>(null);
  const [renaming, setRenaming] = useState(false);
  const [composing, setComposing] = useState(false);

  useEffect(() => {
    composers.set(list._id, () => setComposing(true));
    return () => void composers.delete(list._id);
  }, [composers, list._id]);

  useEffect(() => {
    const element = section.current;
    const handle = header.current;
    const scroll = scroller.current;
    if (!element || !handle || !scroll) return;
    return combine(
      draggable({ element, dragHandle: handle, getInitialData: () => ({ type: 'list', listId: list._id }) }),
      dropTargetForElements({
        element,
        getData: ({ input, element: target }) =>
          attachClosestEdge({ type: 'list', listId: list._id }, { input, element: target, allowedEdges: ['left', 'right'] }),
        onDrag: ({ self, source }) => setEdge(source.data.type === 'list' && source.data.listId !== list._id ? extractClosestEdge(self.data) : null),
        onDragLeave: () => setEdge(null),
        onDrop: () => setEdge(null),
      }),
      autoScrollForElements({ element: scroll }),
    );
  }, [list._id]);

  const total = list.cards.length + (list.nextCursor ? '+' : '');
  // while a filter is on, the count says how many of the list's cards match: "2 of 14"
  const count = filtering ? t.matchingCount(cards.length, total) : total;
  const countLabel = filtering ? t.matchingCountLabel(cards.length, total) : t.cardCount(list.cards.length);
  return (
    <section ref={section} className={`list${edge ? ` drop-${edge}` : ''}`} aria-label={list.name} data-list-id={list._id} role="region">
      <div className="list-header" ref={header}>
        {renaming ? (
          <form
            onSubmit={(event) => {
              event.preventDefault();
              const name = (event.currentTarget.elements.namedItem('name') as HTMLInputElement).value.trim();
              if (name && name !== list.name) void actions.renameList(list._id, name);
              setRenaming(false);
            }}
          >
            <input
              name="name"
              defaultValue={list.name}
              aria-label={t.listName}
              autoFocus
              onBlur={(event) => event.currentTarget.form?.requestSubmit()}
              onKeyDown={(event) => event.key === 'Escape' && setRenaming(false)}
            />
          </form>
        ) : (
          <h2 className="list-name">
            <button type="button" className="list-name-button" onClick={() => setRenaming(true)} aria-label={t.renameList(list.name)}>
              {list.name}
            </button>
          </h2>
        )}
        <span className="list-count" aria-label={countLabel}>
          {count}
        </span>
        <Menu
          label={t.listActions(list.name)}
          trigger={<MoreHorizontal size={18} aria-hidden="true" />}
          items={[
            { label: t.moveListLeft, icon: <ArrowLeft size={16} />, disabled: listIndex === 0, onSelect: () => void actions.moveList(list._id, listIndex - 1) },
            {
              label: t.moveListRight,
              icon: <ArrowRight size={16} />,
              disabled: listIndex === listCount - 1,
              onSelect: () => void actions.moveList(list._id, listIndex + 1),
            },
            { label: recurrencesText.makeInList, icon: <Repeat size={16} />, onSelect: () => onRecur(list._id) },
            {
              label: t.archiveList,
              icon: <Archive size={16} />,
              onSelect: () => {
                if (window.confirm(t.confirmArchiveList(list.name, list.cards.length))) void actions.archiveList(list._id);
              },
            },
          ]}
        />
      </div>
      <div className="list-cards" ref={scroller}>
        {near ? (
          <CardRows
            list={list}
            cards={cards}
            listIndex={listIndex}
            onCardKey={onCardKey}
            openCard={openCard}
            scroller={scroller}
            scrollers={scrollers}
            labelsById={labelsById}
            faces={faces}
            now={now}
          />
        ) : (
          <div style={{ height: Math.min(cards.length, 8) * 64 }} />
        )}
        {cards.length === 0 ? <p className="muted empty">{filtering && list.cards.length ? t.noMatchingCards : t.emptyList}</p> : null}
      </div>
      <CardComposer listId={list._id} listName={list.name} actions={actions} open={composing} setOpen={setComposing} templates={templates} />
    </section>
  );
});

function CardRows(props: {
  list: ListView;
  cards: CardFace[];
  listIndex: number;
  onCardKey: ListProps['onCardKey'];
  openCard: (cardId: string) => void;
  scroller: React.RefObject<HTMLDivElement | null>;
  scrollers: Scrollers;
  labelsById: ReadonlyMap<string, Label>;
  faces: FaceContext;
  now: number;
}) {
  const { cards, scroller } = props;
  const virtualizer = useVirtualizer({
    count: cards.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 72,
    overscan: 6,
    getItemKey: (index) => cards[index]?._id ?? index,
    // the list's box as it stands (drawn before its cards), so the first render already holds the cards in view
    initialRect: { width: scroller.current?.clientWidth ?? 0, height: scroller.current?.clientHeight ?? 0 },
  });
  useEffect(() => {
    props.scrollers.set(props.list._id, (index) => virtualizer.scrollToIndex(index, { align: 'auto' }));
    return () => void props.scrollers.delete(props.list._id);
  }, [props.scrollers, props.list._id, virtualizer]);
  return (
    <div role="list" aria-label={props.list.name} className="card-rows" style={{ height: virtualizer.getTotalSize() }}>
      {virtualizer.getVirtualItems().map((item) => {
        const card = cards[item.index];
        if (!card) return null;
        return (
          <div
            key={item.key}
            role="listitem"
            className="card-row"
            data-index={item.index}
            ref={virtualizer.measureElement}
            style={{ transform: `translateY(${item.start}px)` }}
          >
            <CardTile
              card={card}
              listId={props.list._id}
              listIndex={props.listIndex}
              cardIndex={item.index}
              labelsById={props.labelsById}
              faces={props.faces}
              onCardKey={props.onCardKey}
              openCard={props.openCard}
              now={props.now}
            />
          </div>
        );
      })}
    </div>
  );
}
