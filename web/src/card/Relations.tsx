import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link2, X } from 'lucide-react';
import { type KeyboardEvent, useId, useState } from 'react';
import { Link } from 'react-router';
import { type Card, client, unwrap } from '../api.ts';
import { boardRelationsKey, type CardRelation, cardRelationsKey, cardRelationsQuery, type RelationSide, SIDES } from '../relations/relations.ts';
import { relationsText as r } from '../relations/strings.ts';
import { useDebounced } from '../search/SearchBox.tsx';

const SEARCH_LIMIT = 10;

/**
 * The card's relations, grouped as the card sees them (blocked by, blocks, relates to, duplicates,
 * duplicated by), each linking to the other card wherever it is, with Remove; "Add relation" picks a
 * kind and finds the other card by name among every card the person reaches.
 */
export function Relations(props: { card: Card; run: (work: () => Promise<unknown>) => Promise<boolean> }) {
  const { card } = props;
  const ids = useId();
  const queryClient = useQueryClient();
  const relations = useQuery(cardRelationsQuery(card._id));
  const [adding, setAdding] = useState(false);
  const changed = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: cardRelationsKey(card._id) }),
      queryClient.invalidateQueries({ queryKey: boardRelationsKey(card.board) }),
    ]);

  const list = relations.data ?? [];
  return (
    <section className="relations" aria-labelledby={`${ids}-relations`}>
      <h3 id={`${ids}-relations`}>{r.relations}</h3>
      {relations.data && list.length === 0 && !adding ? <p className="muted">{r.noRelations}</p> : null}
      {SIDES.map((side) => {
        const ofSide = list.filter((relation) => relation.kind === side);
        if (!ofSide.length) return null;
        return (
          <div key={side} className="relation-group">
            <h4 id={`${ids}-${side}`}>{r.kinds[side]}</h4>
            <ul aria-labelledby={`${ids}-${side}`}>
              {ofSide.map((relation) => (
                <RelationRow
                  key={relation._id}
                  relation={relation}
                  onRemove={() =>
                    props.run(async () => {
                      unwrap(
                        await client.DELETE('/api/v1/cards/{cardId}/relations/{relationId}', {
                          params: { path: { cardId: card._id, relationId: relation._id } },
                        }),
                      );
                      await changed();
                    })
                  }
                />
              ))}
            </ul>
          </div>
        );
      })}
      {adding ? (
        <AddRelation
          card={card}
          taken={new Set(list.map((relation) => relation.card._id))}
          onCancel={() => setAdding(false)}
          onAdd={async (kind, other) => {
            const ok = await props.run(async () => {
              unwrap(await client.POST('/api/v1/cards/{cardId}/relations', { params: { path: { cardId: card._id } }, body: { kind, card: other } }));
              await changed();
            });
            if (ok) setAdding(false);
          }}
        />
      ) : (
        <button type="button" onClick={() => setAdding(true)}>
          <Link2 size={16} aria-hidden="true" /> {r.addRelation}
        </button>
      )}
    </section>
  );
}

function RelationRow({ relation, onRemove }: { relation: CardRelation; onRemove: () => void }) {
  const other = relation.card;
  return (
    <li className="relation-row">
      <span className="relation-card">
        <Link to={`/boards/${other.board}?card=${other._id}`} className={other.open ? undefined : 'relation-closed'}>
          {other.name}
        </Link>
        <span className="muted">{r.where(other.boardName, other.listName)}</span>
      </span>
      {other.archived.status ? (
        <span className="relation-state">{r.archived}</span>
      ) : other.complete.status ? (
        <span className="relation-state done">{r.done}</span>
      ) : null}
      <button type="button" className="icon-button" aria-label={r.remove(other.name)} title={r.remove(other.name)} onClick={onRemove}>
        <X size={16} aria-hidden="true" />
      </button>
    </li>
  );
}

/** The kind, then a combobox over the cards found by name (the search operation, cards only). */
function AddRelation(props: { card: Card; taken: ReadonlySet<string>; onCancel: () => void; onAdd: (kind: RelationSide, cardId: string) => Promise<void> }) {
  const id = useId();
  const [kind, setKind] = useState<RelationSide>('blocked_by');
  const [text, setText] = useState('');
  const [active, setActive] = useState(-1);
  const q = useDebounced(text.trim(), 200);
  const found = useQuery({
    queryKey: ['relation-search', q],
    queryFn: async ({ signal }) => unwrap(await client.GET('/api/v1/search', { params: { query: { q, types: 'card', limit: SEARCH_LIMIT } }, signal })).hits,
    enabled: q !== '',
    placeholderData: keepPreviousData,
    staleTime: 5_000,
  });
  // a card of another company, the card itself, or one already related is not offered
  const hits =
    q === '' ? [] : (found.data ?? []).filter((hit) => hit.company._id === props.card.company && hit._id !== props.card._id && !props.taken.has(hit._id));
  const optionId = (index: number) => `${id}-option-${index}`;
  const status = q === '' ? '' : found.isFetching && !found.data ? r.searching : r.results(hits.length);

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (!hits.length) return;
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((current) => (current + step + hits.length + (current < 0 && step < 0 ? 1 : 0)) % hits.length);
    } else if (event.key === 'Enter') {
      event.preventDefault();
      const hit = hits[active] ?? (hits.length === 1 ? hits[0] : undefined);
      if (hit) void props.onAdd(kind, hit._id);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      if (text) setText('');
      else props.onCancel();
    }
  }

  return (
    <div className="relation-add" role="group" aria-labelledby={`${id}-title`}>
      <h4 id={`${id}-title`}>{r.addRelation}</h4>
      <div className="relation-add-row">
        <label>
          {r.thisCard}
          <select value={kind} onChange={(event) => setKind(event.target.value as RelationSide)}>
            {SIDES.map((side) => (
              <option key={side} value={side}>
                {r.choose[side]}
              </option>
            ))}
          </select>
        </label>
        <label htmlFor={`${id}-input`} className="relation-find">
          {r.findCard}
          <input
            id={`${id}-input`}
            type="search"
            role="combobox"
            autoFocus
            autoComplete="off"
            aria-expanded={hits.length > 0}
            aria-controls={`${id}-listbox`}
            aria-autocomplete="list"
            aria-activedescendant={active >= 0 && hits[active] ? optionId(active) : undefined}
            aria-describedby={`${id}-hint ${id}-status`}
            value={text}
            onChange={(event) => {
              setText(event.target.value);
              setActive(-1);
            }}
            onKeyDown={onKeyDown}
          />
        </label>
      </div>
      <p id={`${id}-hint`} className="field-note">
        {r.findCardHint}
      </p>
      <p id={`${id}-status`} className="visually-hidden" role="status">
        {status}
      </p>
      <div role="listbox" id={`${id}-listbox`} aria-label={r.findCard} className="relation-options" hidden={hits.length === 0}>
        {hits.map((hit, index) => (
          <div
            key={hit._id}
            id={optionId(index)}
            role="option"
            tabIndex={-1}
            aria-selected={index === active}
            className="relation-option"
            onMouseDown={(event) => event.preventDefault()}
            onMouseMove={() => setActive(index)}
            onClick={() => void props.onAdd(kind, hit._id)}
          >
            <span className="relation-option-name">{hit.title}</span>
            <span className="muted">{r.where(hit.board.name, hit.list?.name ?? '')}</span>
          </div>
        ))}
      </div>
      {q !== '' && found.data && hits.length === 0 ? <p className="muted">{r.noCardsFound}</p> : null}
      <div className="composer-actions">
        <button type="button" onClick={props.onCancel}>
          {r.cancel}
        </button>
      </div>
    </div>
  );
}
