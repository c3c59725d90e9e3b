import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import Markdown from 'react-markdown';
import { useMe } from '../App.tsx';
import { ApiError, type Card, client, ifMatch, type Label, type Member, unwrap } from '../api.ts';
import { t } from '../strings.ts';
import { Modal } from '../board/dialogs.tsx';
import { textOn } from '../board/filters.ts';
import { type BoardActions, cardKey } from '../board/store.ts';

const toLocalInput = (iso: string | null) => {
  if (!iso) return '';
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
};
const fromLocalInput = (value: string) => (value ? new Date(value).toISOString() : null);

type Patch = { name?: string; description?: string; startDate?: string | null; dueDate?: string | null; complete?: { status: boolean } };

export function CardDialog(props: {
  cardId: string;
  boardCard: Card | undefined;
  labels: Label[];
  members: Member[];
  focus: string | null;
  actions: BoardActions;
  onClose: () => void;
  onMove: () => void;
}) {
  const { cardId, actions } = props;
  const queryClient = useQueryClient();
  const me = useMe();
  const fresh = useQuery({
    queryKey: cardKey(cardId),
    queryFn: async () => unwrap(await client.GET('/api/v1/cards/{cardId}', { params: { path: { cardId } } })).card as Card,
    initialData: props.boardCard,
    staleTime: 0,
  });
  const card = fresh.data;
  // Drafts keep the revision they started from, so a change made elsewhere meanwhile is a 412, not lost.
  const [nameDraft, setNameDraft] = useState<{ value: string; base: number } | null>(null);
  const [descDraft, setDescDraft] = useState<{ value: string; base: number } | null>(null);
  const [conflict, setConflict] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const nameRef = useRef<HTMLTextAreaElement>(null);
  const labelsRef = useRef<HTMLFieldSetElement>(null);
  const membersRef = useRef<HTMLFieldSetElement>(null);
  const dueRef = useRef<HTMLInputElement>(null);
  const ids = useId();

  // biome-ignore lint/correctness/useExhaustiveDependencies: focus moves once, when the card first arrives, not on every change of it
  useEffect(() => {
    if (!card) return;
    if (props.focus === 'name') {
      setNameDraft({ value: card.name, base: card.__v });
      requestAnimationFrame(() => nameRef.current?.focus());
    } else if (props.focus === 'labels') labelsRef.current?.querySelector('button')?.focus();
    else if (props.focus === 'members') membersRef.current?.querySelector('button')?.focus();
    else if (props.focus === 'due') dueRef.current?.focus();
  }, [Boolean(card)]);

  if (!card) return null;

  async function save(patch: Patch, base: number): Promise<boolean> {
    setError(null);
    try {
      const answer = unwrap(await client.PATCH('/api/v1/cards/{cardId}', { params: { path: { cardId }, header: ifMatch(base) as never }, body: patch }));
      actions.applyCard(answer.card as Card);
      setConflict(false);
      return true;
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 412) {
        setConflict(true);
        await queryClient.invalidateQueries({ queryKey: cardKey(cardId) });
        await actions.refreshCard(cardId);
      } else setError(caught instanceof Error ? caught.message : String(caught));
      return false;
    }
  }
  const latest = () => queryClient.getQueryData<Card>(cardKey(cardId)) ?? card;

  async function saveName() {
    if (!nameDraft) return;
    const value = nameDraft.value.trim();
    if (!value) return setError(t.nameEmpty);
    if (value === card?.name) return setNameDraft(null);
    if (await save({ name: value }, nameDraft.base)) setNameDraft(null);
    else setNameDraft({ value: nameDraft.value, base: latest().__v });
  }
  async function saveDescription() {
    if (!descDraft) return;
    if (await save({ description: descDraft.value }, descDraft.base)) setDescDraft(null);
    else setDescDraft({ value: descDraft.value, base: latest().__v });
  }

  const hasLabel = (id: string) => card.labels.some((label) => label._id === id);
  const hasMember = (id: string) => card.members.some((member) => member._id === id);

  return (
    <Modal label={card.name} onClose={props.onClose} className="card-dialog">
      <div className="dialog-head">
        {nameDraft ? (
          <textarea
            ref={nameRef}
            className="name-editor"
            aria-label={t.cardName}
            value={nameDraft.value}
            rows={2}
            onChange={(event) => setNameDraft({ ...nameDraft, value: event.target.value })}
            onBlur={() => void saveName()}
            onKeyDown={(event) => {
              if (event.key === 'Enter') {
                event.preventDefault();
                void saveName();
              } else if (event.key === 'Escape') {
                event.preventDefault();
                event.stopPropagation();
                setNameDraft(null);
              }
            }}
          />
        ) : (
          <h2 className="dialog-title">
            <button
              type="button"
              className="title-button"
              onClick={() => setNameDraft({ value: card.name, base: card.__v })}
              aria-label={t.renameCard(card.name)}
            >
              {card.name}
            </button>
          </h2>
        )}
        <button type="button" onClick={props.onClose} className="close">
          {t.close}
        </button>
      </div>
      {conflict ? (
        <p className="notice notice-info" role="alert">
          {t.changedMeanwhile}
        </p>
      ) : null}
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="dialog-body">
        <div className="dialog-main">
          <fieldset ref={labelsRef} className="chips">
            <legend>{t.labels}</legend>
            {props.labels.map((label) => (
              <button
                key={label._id}
                type="button"
                className="label-chip toggle"
                aria-pressed={hasLabel(label._id)}
                style={hasLabel(label._id) ? { background: label.color.hex, color: textOn(label.color.hex) } : { borderColor: label.color.hex }}
                onClick={() => void actions.toggleLabels(cardId, [label._id])}
              >
                {label.name || label.color.name}
              </button>
            ))}
          </fieldset>
          <fieldset ref={membersRef} className="chips">
            <legend>{t.members}</legend>
            {props.members.map((member) => (
              <button
                key={member._id}
                type="button"
                className="member-chip toggle"
                aria-pressed={hasMember(member._id)}
                onClick={() => void actions.toggleMembers(cardId, [member._id])}
              >
                {member.fullName}
                {member._id === me.data?.user._id ? t.me : ''}
              </button>
            ))}
          </fieldset>
          <div className="dates">
            <label>
              {t.startDate}
              <input
                type="datetime-local"
                value={toLocalInput(card.startDate)}
                onChange={(event) => void save({ startDate: fromLocalInput(event.target.value) }, latest().__v)}
              />
            </label>
            <label>
              {t.dueDate}
              <input
                ref={dueRef}
                type="datetime-local"
                value={toLocalInput(card.dueDate)}
                onChange={(event) => void save({ dueDate: fromLocalInput(event.target.value) }, latest().__v)}
              />
            </label>
            <label className="check">
              <input
                type="checkbox"
                checked={card.complete.status}
                onChange={(event) => void save({ complete: { status: event.target.checked } }, latest().__v)}
              />
              {t.complete}
            </label>
          </div>
          <section aria-labelledby={`${ids}-desc`} className="description">
            <h3 id={`${ids}-desc`}>{t.description}</h3>
            {descDraft ? (
              <div>
                <textarea
                  aria-label={t.description}
                  rows={6}
                  value={descDraft.value}
                  onChange={(event) => setDescDraft({ ...descDraft, value: event.target.value })}
                  autoFocus
                />
                <div className="composer-actions">
                  <button type="button" className="primary" onClick={() => void saveDescription()}>
                    {t.save}
                  </button>
                  <button type="button" onClick={() => setDescDraft(null)}>
                    {t.cancel}
                  </button>
                </div>
                {descDraft.value ? (
                  <div className="markdown preview" aria-label={t.preview}>
                    <Markdown skipHtml>{descDraft.value}</Markdown>
                  </div>
                ) : null}
              </div>
            ) : (
              <>
                <div className="markdown">
                  {card.description ? <Markdown skipHtml>{card.description}</Markdown> : <p className="muted">{t.noDescription}</p>}
                </div>
                <button type="button" onClick={() => setDescDraft({ value: card.description, base: card.__v })}>
                  {t.editDescription}
                </button>
              </>
            )}
          </section>
        </div>
        <div className="dialog-side">
          <button type="button" onClick={props.onMove}>
            {t.move}
          </button>
          <button
            type="button"
            onClick={() => {
              void actions.archiveCard(cardId);
              props.onClose();
            }}
          >
            {t.archiveCard}
          </button>
        </div>
      </div>
    </Modal>
  );
}
