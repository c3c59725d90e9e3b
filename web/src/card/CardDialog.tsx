import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { ApiError, type Card, type CardFace, client, ifMatch, type Label, type Member, unwrap } from '../api.ts';
import { Modal } from '../board/dialogs.tsx';
import { textOn } from '../board/filters.ts';
import { type BoardActions, type BoardView, boardKey, cardKey, findCard } from '../board/store.ts';
import { useFields } from '../fields/fields.ts';
import { useMe } from '../session.ts';
import { t } from '../strings.ts';
import { DateTimePicker } from '../ui/DateTimePicker.tsx';
import { Activity } from './Activity.tsx';
import { Attachments, useUploads } from './Attachments.tsx';
import { CardSide } from './CardSide.tsx';
import { Checklists } from './Checklists.tsx';
import { Cheers } from './Cheers.tsx';
import { Comments, MarkdownComposer } from './Comments.tsx';
import { CustomFields, type ValueChange } from './CustomFields.tsx';
import { type Change, changesBetween } from './conflict.ts';
import { MemberToggles } from './controls.tsx';
import { END_OF_DAY, START_OF_DAY } from './dates.ts';
import { NewLabel } from './NewLabel.tsx';
import { cardQuery, peopleById, startCardReads, useLiveParts, useRefresh } from './queries.ts';
import { Relations } from './Relations.tsx';
import { MentionContext, RichText } from './RichText.tsx';
import './card.css';

type Patch = {
  name?: string;
  description?: string;
  startDate?: string | null;
  dueDate?: string | null;
  complete?: { status: boolean; type?: string };
  cover?: string;
  isPublic?: boolean;
  isTemplate?: boolean;
  workload?: { value?: number | null; measurement?: 'minutes' | 'hours' | 'days' | 'points' };
};

/** A text being edited: the person's words, and the card as it was when they began. */
type Draft = { value: string; base: Card };

export function CardDialog(props: {
  cardId: string;
  labels: Label[];
  members: Member[];
  focus: string | null;
  actions: BoardActions;
  onClose: () => void;
  onMove: () => void;
  /** Opens the recurring cards' editor with a new recurrence made like this card. */
  onRecur?: (card: Card) => void;
}) {
  const { cardId, actions } = props;
  const queryClient = useQueryClient();
  const me = useMe();
  const meId = me.data?.user._id;
  // opened by a link (search, inbox) rather than a click on the board: the reads start together here
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per card; the key remounts the dialog for another
  useEffect(() => startCardReads(queryClient, cardId), []);
  const fresh = useQuery(cardQuery(cardId));
  const card = fresh.data;
  // Drafts keep the card they started from, so a change made elsewhere meanwhile is a 412 (not lost) and can be named.
  const [nameDraft, setNameDraft] = useState<Draft | null>(null);
  const [descDraft, setDescDraft] = useState<Draft | null>(null);
  const [conflict, setConflict] = useState<Change[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [tab, setTab] = useState<'comments' | 'activity'>('comments');
  const nameRef = useRef<HTMLTextAreaElement>(null);
  const labelsRef = useRef<HTMLFieldSetElement>(null);
  const membersRef = useRef<HTMLFieldSetElement>(null);
  const datesRef = useRef<HTMLDivElement>(null);
  const ids = useId();
  const saves = useRef<Promise<unknown>>(Promise.resolve());
  const refresh = useRefresh(cardId, actions);
  const { uploads, start } = useUploads(`/api/v1/cards/${cardId}/attachments`, refresh, setError);
  useLiveParts(cardId);
  const people = useMemo(() => peopleById(props.members), [props.members]);
  const fields = useFields(card?.board);
  const mentionScope = useMemo(() => ({ members: props.members, boardId: card?.board ?? '', meId }), [props.members, card?.board, meId]);
  const boardShown = () => queryClient.getQueriesData<BoardView>({ queryKey: ['board'] }).find(([, view]) => findCard(view, cardId))?.[1];
  const board = card ? queryClient.getQueryData<BoardView>(boardKey(card.board)) : undefined;
  const lists = useMemo(() => new Map((board?.lists ?? []).map((list) => [list._id, list.name])), [board]);
  const otherCards = useMemo(() => (board?.lists ?? []).flatMap((list) => list.cards).filter((one) => one._id !== cardId), [board, cardId]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: focus moves once, when the card first arrives, not on every change of it
  useEffect(() => {
    if (!card) return;
    if (props.focus === 'name') {
      setNameDraft({ value: card.name, base: card });
      requestAnimationFrame(() => nameRef.current?.focus());
    } else if (props.focus === 'labels') labelsRef.current?.querySelector('button')?.focus();
    else if (props.focus === 'members') membersRef.current?.querySelector('button')?.focus();
    // the due date's first part (its second picker): after the dialog has taken its own first focus
    else if (props.focus === 'due')
      requestAnimationFrame(() =>
        datesRef.current?.querySelectorAll<HTMLElement>('.date-picker')[1]?.querySelector<HTMLElement>('[role="spinbutton"]')?.focus(),
      );
  }, [Boolean(card)]);

  if (!card) {
    // the same Modal at the root as below: when the card comes, the open dialog shows it
    const face = findCard(boardShown(), cardId);
    return face ? (
      <Modal label={face.name} onClose={props.onClose} className="card-dialog">
        <KnownCard face={face} labels={props.labels} onClose={props.onClose} />
      </Modal>
    ) : null;
  }

  /** One write of the dialog: errors show in the dialog; the card and its parts are read again. */
  async function run(work: () => Promise<unknown>): Promise<boolean> {
    setError(null);
    try {
      await work();
      await refresh();
      return true;
    } catch (caught) {
      setError(t.refused(caught instanceof Error ? caught.message : String(caught)));
      await refresh();
      return false;
    }
  }

  const save = (patch: Patch, base: Card) =>
    write(base, async () =>
      unwrap(await client.PATCH('/api/v1/cards/{cardId}', { params: { path: { cardId }, header: ifMatch(base.__v) as never }, body: patch })),
    );
  /** One write on the revision `base` shows: a 412 names what changed meanwhile, as the card's other edits do. */
  async function write(base: Card, send: () => Promise<{ card: unknown }>): Promise<boolean> {
    setError(null);
    try {
      const answer = await send();
      actions.applyCard(answer.card as Card);
      setConflict(null);
      return true;
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 412) {
        // the board's face and the dialog's whole card are both read again: the conflict names what changed
        await actions.refreshCard(cardId).catch(() => undefined);
        const now = await queryClient.fetchQuery({ ...cardQuery(cardId), staleTime: 0 }).catch(() => undefined);
        setConflict(changesBetween(base, now ?? latest(), { lists, labels: props.labels, fields: fields.data ?? [], people }));
      } else setError(t.refused(caught instanceof Error ? caught.message : String(caught)));
      return false;
    }
  }
  const latest = () => queryClient.getQueryData<Card>(cardKey(cardId)) ?? card;
  /**
   * A field saved as soon as it changes goes after the saves before it, each on the revision the
   * one before left: quick changes of two fields are two writes, not a 412 of the second.
   */
  function saveField(patch: Patch): Promise<boolean> {
    const next = saves.current.then(() => save(patch, latest()));
    saves.current = next.catch(() => false);
    return next;
  }

  /** A card's field values, sent after the saves before them as the other fields are. */
  function saveValues(values: ValueChange[], draftBase?: Card): Promise<boolean> {
    const next = saves.current.then(() => {
      const base = draftBase ?? latest();
      return write(base, async () =>
        unwrap(
          await client.PATCH('/api/v1/cards/{cardId}/custom-fields', {
            params: { path: { cardId }, header: ifMatch(base.__v) as never },
            body: { values: values as never },
          }),
        ),
      );
    });
    saves.current = next.catch(() => false);
    return next;
  }

  async function saveName() {
    if (!nameDraft) return;
    const value = nameDraft.value.trim();
    if (!value) return setError(t.nameEmpty);
    if (value === card?.name) return setNameDraft(null);
    if (await save({ name: value }, nameDraft.base)) setNameDraft(null);
    else setNameDraft({ value: nameDraft.value, base: latest() });
  }
  async function saveDescription() {
    if (!descDraft) return;
    if (await save({ description: descDraft.value }, descDraft.base)) setDescDraft(null);
    else setDescDraft({ value: descDraft.value, base: latest() });
  }

  const hasLabel = (id: string) => card.labels.some((label) => label._id === id);

  return (
    <Modal label={card.name} onClose={props.onClose} className="card-dialog">
      <MentionContext.Provider value={mentionScope}>
        {/* Pasting files anywhere in the dialog attaches them, as in Trello. */}
        <div
          className="card-dialog-content"
          onPaste={(event) => {
            const files = [...event.clipboardData.files];
            if (!files.length) return;
            event.preventDefault();
            start(files);
          }}
        >
          <div className="dialog-head">
            {nameDraft ? (
              <textarea
                ref={nameRef}
                autoFocus
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
                  onClick={() => setNameDraft({ value: card.name, base: card })}
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
          {card.archived.status ? <p className="notice notice-info">{t.cardIsArchived}</p> : null}
          {conflict ? (
            <div className="notice notice-info" role="alert">
              <p>{t.changedMeanwhile}</p>
              {conflict.length ? (
                <ul className="changes">
                  {conflict.map((change) => (
                    <li key={change.field}>
                      <strong>{change.label}:</strong> {change.now}
                    </li>
                  ))}
                </ul>
              ) : null}
            </div>
          ) : null}
          {error ? (
            <p className="error" role="alert">
              {error}
            </p>
          ) : null}
          {notice ? (
            <p className="notice notice-info" role="status">
              {notice}
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
                <NewLabel boardId={card.board} onCreated={(label) => actions.toggleLabels(cardId, [label._id])} />
              </fieldset>
              <MemberToggles
                fieldsetRef={membersRef}
                members={props.members}
                chosen={card.members}
                meId={meId}
                onToggle={(memberId) => void actions.toggleMembers(cardId, [memberId])}
              />
              <div className="dates" ref={datesRef}>
                <DateTimePicker label={t.startDate} value={card.startDate} defaultTime={START_OF_DAY} onChange={(startDate) => void saveField({ startDate })} />
                <DateTimePicker label={t.dueDate} value={card.dueDate} defaultTime={END_OF_DAY} onChange={(dueDate) => void saveField({ dueDate })} />
                <label className="check">
                  <input type="checkbox" checked={card.complete.status} onChange={(event) => void saveField({ complete: { status: event.target.checked } })} />
                  {t.complete}
                </label>
              </div>
              <CustomFields card={card} fields={fields.data ?? []} members={props.members} people={people} save={saveValues} latest={latest} />
              <Relations card={card} run={run} />
              <Cheers
                target={{ kind: 'card', id: card._id, cardId }}
                what={card.name}
                cheers={card.cheers}
                people={people}
                meId={meId}
                onChange={refresh}
                onError={setError}
              />
              <section aria-labelledby={`${ids}-desc`} className="description">
                <h3 id={`${ids}-desc`}>{t.description}</h3>
                {descDraft ? (
                  <div>
                    <MarkdownComposer
                      label={t.description}
                      rows={6}
                      value={descDraft.value}
                      onChange={(value) => setDescDraft({ ...descDraft, value })}
                      members={props.members}
                      submitLabel={t.save}
                      onSubmit={() => void saveDescription()}
                      onCancel={() => setDescDraft(null)}
                      allowEmpty
                      autoFocus
                    />
                  </div>
                ) : (
                  <>
                    <div className="markdown">{card.description ? <RichText text={card.description} /> : <p className="muted">{t.noDescription}</p>}</div>
                    <button type="button" onClick={() => setDescDraft({ value: card.description, base: card })}>
                      {t.editDescription}
                    </button>
                  </>
                )}
              </section>
              <Checklists card={card} members={props.members} otherCards={otherCards} run={run} refresh={refresh} onError={setError} />
              <Attachments card={card} uploads={uploads} start={start} people={people} meId={meId} run={run} refresh={refresh} onError={setError} />
              <section className="conversation" aria-label={t.conversation}>
                <div className="tabs" role="tablist" aria-label={t.conversation}>
                  <button
                    type="button"
                    role="tab"
                    id={`${ids}-tab-comments`}
                    aria-controls={`${ids}-panel`}
                    aria-selected={tab === 'comments'}
                    onClick={() => setTab('comments')}
                  >
                    {t.commentsTab}
                  </button>
                  <button
                    type="button"
                    role="tab"
                    id={`${ids}-tab-activity`}
                    aria-controls={`${ids}-panel`}
                    aria-selected={tab === 'activity'}
                    onClick={() => setTab('activity')}
                  >
                    {t.activityTab}
                  </button>
                </div>
                <div role="tabpanel" id={`${ids}-panel`} aria-labelledby={`${ids}-tab-${tab}`}>
                  {tab === 'comments' ? (
                    <Comments cardId={cardId} members={props.members} people={people} meId={meId} run={run} refresh={refresh} onError={setError} />
                  ) : (
                    <Activity cardId={cardId} names={{ people, lists, labels: props.labels, meId }} />
                  )}
                </div>
              </section>
            </div>
            <CardSide
              card={card}
              people={people}
              save={saveField}
              run={run}
              actions={actions}
              lists={board?.lists ?? []}
              onMove={props.onMove}
              onRecur={props.onRecur}
              onClose={props.onClose}
              onNotice={setNotice}
              onError={setError}
            />
          </div>
        </div>
      </MentionContext.Provider>
    </Modal>
  );
}

/**
 * What the board already knows of the card (its face: name, labels), shown in the dialog at once
 * while the whole card is read; the same Modal then shows the card, so nothing reopens or jumps.
 */
function KnownCard({ face, labels, onClose }: { face: CardFace; labels: Label[]; onClose: () => void }) {
  const known = labels.filter((label) => face.labels.includes(label._id));
  return (
    <div className="card-dialog-content" aria-busy="true">
      <div className="dialog-head">
        <h2 className="dialog-title">{face.name}</h2>
        <button type="button" onClick={onClose} className="close">
          {t.close}
        </button>
      </div>
      {known.length ? (
        <div className="chips">
          {known.map((label) => (
            <span key={label._id} className="label-chip" style={{ background: label.color.hex, color: textOn(label.color.hex) }}>
              {label.name || label.color.name}
            </span>
          ))}
        </div>
      ) : null}
      <p className="muted">{t.loading}</p>
    </div>
  );
}
