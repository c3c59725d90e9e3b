import { useEffect, useId, useRef, useState } from 'react';
import { t } from '../strings.ts';
import type { BoardActions } from './store.ts';
import { templatesText } from './templates/strings.ts';

/** A template the composer offers: of this board, or of another board of the team (`boardName`). */
export interface ComposerTemplate {
  _id: string;
  name: string;
  boardName?: string | undefined;
}

/** The templates grouped by board, this board's first (no name), as the choice shows them. */
function byBoard(templates: readonly ComposerTemplate[]): [string | undefined, ComposerTemplate[]][] {
  const groups = new Map<string | undefined, ComposerTemplate[]>();
  for (const one of templates) groups.set(one.boardName, [...(groups.get(one.boardName) ?? []), one]);
  return [...groups];
}

/** The card composer at a list's foot: it stays open after Enter for the next card; Escape closes it. */
export function CardComposer({
  listId,
  listName,
  actions,
  open,
  setOpen,
  templates,
}: {
  listId: string;
  listName: string;
  actions: BoardActions;
  open: boolean;
  setOpen: (open: boolean) => void;
  /** The board's template cards, then those of the team's other boards (with their board's name): a card can be made from one instead of from a name alone. */
  templates: readonly ComposerTemplate[];
}) {
  const input = useRef<HTMLTextAreaElement>(null);
  const [template, setTemplate] = useState('');
  const chosen = templates.find((one) => one._id === template) ?? templates[0];
  const ids = useId();
  useEffect(() => {
    if (open) input.current?.focus();
  }, [open]);
  if (!open)
    return (
      <button type="button" className="add-card" onClick={() => setOpen(true)} aria-label={t.addCardTo(listName)}>
        + {t.addCard}
      </button>
    );
  const submit = () => {
    const name = input.current?.value.trim() ?? '';
    if (!name) return;
    void actions.createCard(listId, name);
    if (input.current) input.current.value = '';
    input.current?.focus();
  };
  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <textarea
        ref={input}
        aria-label={t.cardName}
        placeholder={t.cardName}
        rows={2}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !event.shiftKey) {
            event.preventDefault();
            submit();
          } else if (event.key === 'Escape') setOpen(false);
        }}
      />
      <div className="composer-actions">
        <button type="submit" className="primary">
          {t.addCardButton}
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          {t.cancel}
        </button>
      </div>
      {chosen ? (
        <fieldset className="composer-template">
          <legend>{templatesText.fromTemplate}</legend>
          <label htmlFor={`${ids}-template`} className="visually-hidden">
            {templatesText.choose}
          </label>
          <select id={`${ids}-template`} value={chosen._id} onChange={(event) => setTemplate(event.target.value)}>
            {templates.some((one) => one.boardName !== undefined)
              ? byBoard(templates).map(([board, group]) => (
                  <optgroup key={board ?? ''} label={board ?? templatesText.thisBoard}>
                    {group.map((one) => (
                      <option key={one._id} value={one._id}>
                        {one.name}
                      </option>
                    ))}
                  </optgroup>
                ))
              : templates.map((one) => (
                  <option key={one._id} value={one._id}>
                    {one.name}
                  </option>
                ))}
          </select>
          <button
            type="button"
            aria-label={templatesText.createNamed(chosen.name)}
            onClick={() => {
              // the name typed, if any, names the new card; else it takes the template's
              const name = input.current?.value.trim() || undefined;
              void actions.createFromTemplate(chosen._id, listId, name);
              if (input.current) input.current.value = '';
              input.current?.focus();
            }}
          >
            {templatesText.create}
          </button>
        </fieldset>
      ) : null}
    </form>
  );
}

/** "Add a list", which closes the row of lists; open at once on a board with none. */
export function ListComposer({ actions, first }: { actions: BoardActions; first: boolean }) {
  const [open, setOpen] = useState(first);
  const id = useId();
  if (!open)
    return (
      <button type="button" className="add-list" onClick={() => setOpen(true)}>
        + {t.addList}
      </button>
    );
  return (
    <form
      className="list composer"
      onSubmit={(event) => {
        event.preventDefault();
        const input = event.currentTarget.elements.namedItem('name') as HTMLInputElement;
        const name = input.value.trim();
        if (name) void actions.createList(name);
        input.value = '';
      }}
    >
      <label htmlFor={id}>{first ? t.addFirstList : t.listName}</label>
      {first ? (
        <p id={`${id}-hint`} className="composer-hint muted">
          {t.noListsHint}
        </p>
      ) : null}
      <input
        id={id}
        name="name"
        autoFocus={!first}
        aria-describedby={first ? `${id}-hint` : undefined}
        onKeyDown={(event) => event.key === 'Escape' && setOpen(false)}
      />
      <div className="composer-actions">
        <button type="submit" className="primary">
          {t.addList}
        </button>
        {!first ? (
          <button type="button" onClick={() => setOpen(false)}>
            {t.cancel}
          </button>
        ) : null}
      </div>
    </form>
  );
}
