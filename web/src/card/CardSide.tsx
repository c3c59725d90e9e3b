import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Eye } from 'lucide-react';
import { useId, useState } from 'react';
import { type Card, client, type Member, unwrap } from '../api.ts';
import { Modal } from '../board/dialogs.tsx';
import { recurrencesText } from '../board/recurrences/strings.ts';
import { type BoardActions, type BoardView, boardKey, type ListView, removeCard } from '../board/store.ts';
import { templatesText } from '../board/templates/strings.ts';
import { formatList } from '../i18n/messages.ts';
import { t } from '../strings.ts';
import { nameOf } from './queries.ts';

type Patch = {
  cover?: string;
  isPublic?: boolean;
  isTemplate?: boolean;
  complete?: { status: boolean; type?: string };
  workload?: { value?: number | null; measurement?: 'minutes' | 'hours' | 'days' | 'points' };
};
const MEASUREMENTS = ['minutes', 'hours', 'days', 'points'] as const;

/**
 * The side column: cover, workload, public flag, the kind of completion, who has seen the card;
 * then move, copy, move to another board or team, archive or unarchive, delete.
 */
export function CardSide(props: {
  card: Card;
  people: Map<string, Member>;
  save: (patch: Patch) => Promise<boolean>;
  run: (work: () => Promise<unknown>) => Promise<boolean>;
  actions: BoardActions;
  lists: ListView[];
  onMove: () => void;
  onRecur?: ((card: Card) => void) | undefined;
  onClose: () => void;
  onNotice: (text: string) => void;
  onError: (text: string) => void;
}) {
  const { card, save } = props;
  const queryClient = useQueryClient();
  const [dialog, setDialog] = useState<'copy' | 'elsewhere' | null>(null);
  const [workload, setWorkload] = useState<string | null>(null);
  const id = useId();
  const images = card.attachments.filter((attachment) => !attachment.isDeleted && attachment.type === 'file' && attachment.mimeType.startsWith('image/'));
  const dropFromBoard = () => queryClient.setQueryData<BoardView>(boardKey(card.board), (view) => (view ? removeCard(view, card._id) : view));

  return (
    <div className="dialog-side">
      <WatchButton cardId={card._id} onError={props.onError} />
      <label>
        {t.cover}
        <select value={card.cover} onChange={(event) => void save({ cover: event.target.value })}>
          <option value="">{t.noCover}</option>
          {images.map((image) => (
            <option key={image._id} value={image.url}>
              {image.name}
            </option>
          ))}
        </select>
      </label>
      <fieldset className="workload">
        <legend>{t.workload}</legend>
        <input
          type="number"
          min={0}
          step="any"
          aria-label={t.workloadValue}
          value={workload ?? (card.workload.value === null ? '' : String(card.workload.value))}
          onChange={(event) => setWorkload(event.target.value)}
          onBlur={() => {
            if (workload === null) return;
            const value = workload.trim() === '' ? null : Number(workload);
            setWorkload(null);
            if (value !== card.workload.value && (value === null || Number.isFinite(value))) void save({ workload: { value } });
          }}
        />
        <select
          aria-label={t.workloadUnit}
          value={card.workload.measurement}
          onChange={(event) => void save({ workload: { measurement: event.target.value as (typeof MEASUREMENTS)[number] } })}
        >
          {MEASUREMENTS.map((unit) => (
            <option key={unit} value={unit}>
              {t.units[unit]}
            </option>
          ))}
        </select>
      </fieldset>
      <label className="check">
        <input type="checkbox" checked={card.isPublic} onChange={(event) => void save({ isPublic: event.target.checked })} />
        {t.isPublic}
      </label>
      <p className="field-note">{t.isPublicHint}</p>
      <label className="check">
        <input type="checkbox" checked={card.isTemplate} onChange={(event) => void save({ isTemplate: event.target.checked })} />
        {templatesText.isTemplate}
      </label>
      <p className="field-note">{templatesText.hint}</p>
      <label>
        {t.completeType}
        {/* the stored kind is a word of the API's; the person picks it in words */}
        <select
          value={card.complete.type}
          onChange={(event) => {
            if (event.target.value !== card.complete.type) void save({ complete: { status: card.complete.status, type: event.target.value } });
          }}
        >
          {[...new Set([...Object.keys(t.completeTypes), card.complete.type])].map((type) => (
            <option key={type} value={type}>
              {t.completeTypes[type] ?? t.completeTypeOther(type)}
            </option>
          ))}
        </select>
      </label>
      <section aria-labelledby={`${id}-seen`} className="seen">
        <h3 id={`${id}-seen`}>{t.seenBy}</h3>
        <p>
          {card.seen.length
            ? formatList(
                card.seen.map((user) => nameOf(props.people, user)),
                'unit',
                'short',
              )
            : t.none}
        </p>
      </section>
      <div className="side-actions">
        <button type="button" onClick={props.onMove}>
          {t.move}
        </button>
        <button type="button" onClick={() => setDialog('copy')}>
          {t.copyCard}
        </button>
        <button type="button" onClick={() => setDialog('elsewhere')}>
          {t.moveElsewhere}
        </button>
        {props.onRecur ? (
          <button type="button" onClick={() => props.onRecur?.(card)}>
            {recurrencesText.fromCard}
          </button>
        ) : null}
        {card.archived.status ? (
          <button
            type="button"
            onClick={() => void props.run(() => client.PATCH('/api/v1/cards/{cardId}/unarchive', { params: { path: { cardId: card._id } } }).then(unwrap))}
          >
            {t.unarchiveCard}
          </button>
        ) : (
          <button
            type="button"
            onClick={() => {
              void props.actions.archiveCard(card._id);
              props.onClose();
            }}
          >
            {t.archiveCard}
          </button>
        )}
        <button
          type="button"
          className="danger"
          onClick={async () => {
            const checklists = card.checklists.length;
            const attachments = card.attachments.filter((attachment) => !attachment.isDeleted).length;
            if (!window.confirm(t.confirmDeleteCard(card.name, card.comments.length, checklists, attachments))) return;
            try {
              unwrap(await client.DELETE('/api/v1/cards/{cardId}', { params: { path: { cardId: card._id } } }));
              dropFromBoard();
              props.onClose();
            } catch (caught) {
              props.onError(t.refused(caught instanceof Error ? caught.message : String(caught)));
            }
          }}
        >
          {t.deleteCard}
        </button>
      </div>
      {dialog === 'copy' ? (
        <CopyDialog
          card={card}
          lists={props.lists}
          onCancel={() => setDialog(null)}
          onCopied={async (copy, listName) => {
            setDialog(null);
            await props.actions.refreshCard(copy._id).catch(() => undefined);
            props.onNotice(t.copied(copy.name, listName));
          }}
          onError={props.onError}
        />
      ) : null}
      {dialog === 'elsewhere' ? (
        <ElsewhereDialog
          card={card}
          onCancel={() => setDialog(null)}
          onMoved={async (sameBoard) => {
            setDialog(null);
            if (sameBoard) await props.actions.refreshCard(card._id).catch(() => undefined);
            else {
              dropFromBoard();
              props.onClose();
            }
          }}
          onError={props.onError}
        />
      ) : null}
    </div>
  );
}

/**
 * Watch (Trello's): the caller is told of the card as its members are, without being one; pressed
 * while watching. The state is the caller's own, read apart from the card.
 */
function WatchButton({ cardId, onError }: { cardId: string; onError: (text: string) => void }) {
  const queryClient = useQueryClient();
  const hintId = useId();
  const key = ['card-watch', cardId];
  const watch = useQuery({
    queryKey: key,
    queryFn: async () => unwrap(await client.GET('/api/v1/cards/{cardId}/watch', { params: { path: { cardId } } })).watching,
  });
  const toggle = useMutation({
    mutationFn: async (watching: boolean) =>
      unwrap(
        watching
          ? await client.POST('/api/v1/cards/{cardId}/watch', { params: { path: { cardId } } })
          : await client.DELETE('/api/v1/cards/{cardId}/watch', { params: { path: { cardId } } }),
      ).watching,
    onSuccess: (watching) => queryClient.setQueryData(key, watching),
    onError: (caught) => onError(t.refused(caught instanceof Error ? caught.message : String(caught))),
  });
  const watching = toggle.isPending ? toggle.variables : (watch.data ?? false);
  return (
    <div className="watch">
      <button
        type="button"
        className={watching ? 'watch-button on' : 'watch-button'}
        aria-pressed={watching}
        aria-describedby={hintId}
        disabled={watch.isPending || toggle.isPending}
        onClick={() => toggle.mutate(!watching)}
      >
        <Eye size={16} aria-hidden="true" />
        {watching ? t.watching : t.watch}
      </button>
      <p id={hintId} className="watch-note">
        {t.watchHint}
      </p>
    </div>
  );
}

const KEEP = ['labels', 'members', 'checklists', 'attachments'] as const;

function CopyDialog(props: {
  card: Card;
  lists: ListView[];
  onCancel: () => void;
  onCopied: (copy: Card, listName: string) => void;
  onError: (text: string) => void;
}) {
  const { card } = props;
  const [name, setName] = useState(t.copyName(card.name));
  const [listId, setListId] = useState(card.list);
  const [keep, setKeep] = useState<Record<(typeof KEEP)[number], boolean>>({ labels: true, members: true, checklists: true, attachments: true });
  const id = useId();
  return (
    <Modal label={t.copyCardNamed(card.name)} onClose={props.onCancel}>
      <form
        className="move-form"
        onSubmit={async (event) => {
          event.preventDefault();
          try {
            const answer = unwrap(
              await client.POST('/api/v1/cards/{cardId}/copy', {
                params: { path: { cardId: card._id } },
                body: { list: listId, name: name.trim() || card.name, position: 'bottom', keep },
              }),
            );
            props.onCopied(answer.card as Card, props.lists.find((list) => list._id === listId)?.name ?? '');
          } catch (caught) {
            props.onError(t.refused(caught instanceof Error ? caught.message : String(caught)));
            props.onCancel();
          }
        }}
      >
        <h2>{t.copyCard}</h2>
        <label htmlFor={`${id}-name`}>{t.cardName}</label>
        <input id={`${id}-name`} value={name} onChange={(event) => setName(event.target.value)} />
        <label htmlFor={`${id}-list`}>{t.list}</label>
        <select id={`${id}-list`} value={listId} onChange={(event) => setListId(event.target.value)}>
          {props.lists.map((list) => (
            <option key={list._id} value={list._id}>
              {list.name}
            </option>
          ))}
        </select>
        <fieldset>
          <legend>{t.keep}</legend>
          {KEEP.map((part) => (
            <label key={part} className="check">
              <input type="checkbox" checked={keep[part]} onChange={(event) => setKeep({ ...keep, [part]: event.target.checked })} />
              {t.keepPart[part]}
            </label>
          ))}
        </fieldset>
        <div className="composer-actions">
          <button type="submit" className="primary">
            {t.copyButton}
          </button>
          <button type="button" onClick={props.onCancel}>
            {t.cancel}
          </button>
        </div>
      </form>
    </Modal>
  );
}

/** Move to a list of any board of any team the person is in (the multi-team move). */
function ElsewhereDialog(props: { card: Card; onCancel: () => void; onMoved: (sameBoard: boolean) => void; onError: (text: string) => void }) {
  const { card } = props;
  const id = useId();
  const [team, setTeam] = useState(`${card.company}/${card.team}`);
  const [boardId, setBoardId] = useState(card.board);
  const [listId, setListId] = useState('');
  const [companyId, teamId] = team.split('/') as [string, string];
  const teams = useQuery({
    queryKey: ['all-teams'],
    queryFn: async () => {
      const { companies } = unwrap(await client.GET('/api/v1/companies'));
      const perCompany = await Promise.all(
        companies.map(async (company) => {
          const { teams } = unwrap(await client.GET('/api/v1/teams', { params: { query: { companyId: company._id } } }));
          return teams.map((one) => ({ company, team: one }));
        }),
      );
      return perCompany.flat();
    },
  });
  const boards = useQuery({
    queryKey: ['boards-of', teamId],
    queryFn: async () => unwrap(await client.GET('/api/v1/boards', { params: { query: { companyId, teamId } } })).boards,
  });
  const lists = useQuery({
    queryKey: ['lists-of', boardId],
    enabled: Boolean(boardId),
    queryFn: async () => unwrap(await client.GET('/api/v1/boards/{boardId}/lists', { params: { path: { boardId } } })).board.lists,
  });
  const chosenList = listId || lists.data?.[0]?._id || '';
  return (
    <Modal label={t.moveElsewhereNamed(card.name)} onClose={props.onCancel}>
      <form
        className="move-form"
        onSubmit={async (event) => {
          event.preventDefault();
          if (!chosenList) return;
          try {
            unwrap(
              await client.PATCH('/api/v1/cards/move-multi-team', {
                body: { cards: [{ cardId: card._id, companyId: card.company, teamId: card.team }], target: { companyId, teamId, list: chosenList } },
              }),
            );
            props.onMoved(boardId === card.board);
          } catch (caught) {
            props.onError(t.refused(caught instanceof Error ? caught.message : String(caught)));
            props.onCancel();
          }
        }}
      >
        <h2>{t.moveElsewhere}</h2>
        <label htmlFor={`${id}-team`}>{t.team}</label>
        <select
          id={`${id}-team`}
          value={team}
          onChange={(event) => {
            setTeam(event.target.value);
            setBoardId('');
            setListId('');
          }}
        >
          {(teams.data ?? []).map(({ company, team: one }) => (
            <option key={one._id} value={`${company._id}/${one._id}`}>
              {company.name} / {one.name}
            </option>
          ))}
        </select>
        <label htmlFor={`${id}-board`}>{t.board}</label>
        <select
          id={`${id}-board`}
          value={boardId}
          onChange={(event) => {
            setBoardId(event.target.value);
            setListId('');
          }}
        >
          <option value="">{t.chooseBoard}</option>
          {(boards.data ?? []).map((board) => (
            <option key={board._id} value={board._id}>
              {board.name}
            </option>
          ))}
        </select>
        <label htmlFor={`${id}-list`}>{t.list}</label>
        <select id={`${id}-list`} value={chosenList} onChange={(event) => setListId(event.target.value)}>
          {(lists.data ?? []).map((list) => (
            <option key={list._id} value={list._id}>
              {list.name}
            </option>
          ))}
        </select>
        <div className="composer-actions">
          <button type="submit" className="primary" disabled={!chosenList}>
            {t.moveButton}
          </button>
          <button type="button" onClick={props.onCancel}>
            {t.cancel}
          </button>
        </div>
      </form>
    </Modal>
  );
}
