import { type ReactNode, useId, useState } from 'react';
import { type Card, client, type Member, unwrap } from '../api.ts';
import { formatDate, formatList } from '../i18n/messages.ts';
import { t } from '../strings.ts';
import { DateTimePicker } from '../ui/DateTimePicker.tsx';
import { deleteWithUndo, useHiddenByUndo } from '../ui/undoableDelete.ts';
import { download, UploadList, useUploads } from './Attachments.tsx';
import { FileButton, MemberToggles, RenameInput } from './controls.tsx';
import { END_OF_DAY } from './dates.ts';
import { type Checklist, type ChecklistItem, useChecklists } from './queries.ts';

type Run = (work: () => Promise<unknown>) => Promise<boolean>;

/**
 * A closed-by-default group of controls whose contents exist only while open: a card with a hundred
 * items renders a hundred summaries, not a hundred sets of date fields and pickers.
 */
function Disclosure({ summary, children }: { summary: string; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="more" open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>{summary}</summary>
      {open ? <div className="more-body">{children}</div> : null}
    </details>
  );
}
/** What the items need besides a write: a re-read after an upload, and where to say an upload failed. */
type After = { refresh: () => Promise<unknown>; onError: (message: string) => void };

/**
 * The card's checklists: create, rename, reorder, copy to another card of the board, delete; their
 * items with name, date, members and completion, moved up and down or to another checklist, copied,
 * deleted. Every write is one request; the lists are then read again (the server's order wins).
 */
/** A card a checklist can be copied to: the board's card faces name them. */
type OtherCard = Pick<Card, '_id' | 'name'>;

export function Checklists(props: { card: Card; members: Member[]; otherCards: OtherCard[]; run: Run } & After) {
  const { card, run } = props;
  const checklists = useChecklists(card._id);
  const [adding, setAdding] = useState(false);
  const [name, setName] = useState('');
  const id = useId();
  const all = checklists.data ?? [];

  return (
    <section className="checklists" aria-labelledby={`${id}-h`}>
      <div className="section-head">
        <h3 id={`${id}-h`}>{t.checklists}</h3>
        {adding ? null : (
          <button type="button" onClick={() => setAdding(true)}>
            {t.addChecklist}
          </button>
        )}
      </div>
      {adding ? (
        <form
          className="inline-form"
          onSubmit={async (event) => {
            event.preventDefault();
            const value = name.trim();
            if (!value) return;
            if (
              await run(() => client.POST('/api/v1/cards/{cardId}/checklists', { params: { path: { cardId: card._id } }, body: { name: value } }).then(unwrap))
            ) {
              setName('');
              setAdding(false);
            }
          }}
        >
          <input aria-label={t.checklistName} value={name} onChange={(event) => setName(event.target.value)} autoFocus />
          <button type="submit" className="primary">
            {t.addChecklistButton}
          </button>
          <button type="button" onClick={() => setAdding(false)}>
            {t.cancel}
          </button>
        </form>
      ) : null}
      {all.map((checklist, index) => (
        <ChecklistView
          key={checklist._id}
          checklist={checklist}
          index={index}
          count={all.length}
          all={all}
          members={props.members}
          otherCards={props.otherCards}
          run={run}
          refresh={props.refresh}
          onError={props.onError}
        />
      ))}
    </section>
  );
}

function ChecklistView(
  props: { checklist: Checklist; index: number; count: number; all: Checklist[]; members: Member[]; otherCards: OtherCard[]; run: Run } & After,
) {
  const { checklist, run } = props;
  const [renaming, setRenaming] = useState<string | null>(null);
  const [newItem, setNewItem] = useState('');
  const [copyTo, setCopyTo] = useState('');
  const id = useId();
  const checklistId = checklist._id;
  // an item deleted here whose Undo is still offered is not shown, nor counted
  const hidden = useHiddenByUndo();
  const items = checklist.items.filter((item) => !hidden.has(item._id));
  const done = items.filter((item) => item.complete.status).length;
  const total = items.length;
  const move = (position: number) =>
    run(() => client.PATCH('/api/v1/checklists/{checklistId}/position', { params: { path: { checklistId } }, body: { position } }).then(unwrap));

  return (
    <section className="checklist" aria-labelledby={`${id}-name`}>
      <div className="section-head">
        {renaming !== null ? (
          <RenameInput
            label={t.checklistName}
            initial={renaming}
            onCancel={() => setRenaming(null)}
            onSave={async (name) => {
              if (await run(() => client.PATCH('/api/v1/checklists/{checklistId}', { params: { path: { checklistId } }, body: { name } }).then(unwrap)))
                setRenaming(null);
            }}
          />
        ) : (
          <h4 id={`${id}-name`}>
            <button type="button" className="title-button" aria-label={t.renameThis(checklist.name)} onClick={() => setRenaming(checklist.name)}>
              {checklist.name}
            </button>
          </h4>
        )}
        <span className="progress-text">{t.progress(done, total)}</span>
      </div>
      <progress className="checklist-progress" max={Math.max(1, total)} value={done} aria-label={t.progressOf(checklist.name, done, total)} />
      <ul className="items">
        {items.map((item, index) => (
          <ItemView
            key={item._id}
            item={item}
            index={index}
            checklist={checklist}
            all={props.all}
            members={props.members}
            run={run}
            refresh={props.refresh}
            onError={props.onError}
          />
        ))}
      </ul>
      <form
        className="inline-form"
        onSubmit={async (event) => {
          event.preventDefault();
          const value = newItem.trim();
          if (!value) return;
          if (await run(() => client.POST('/api/v1/checklists/{checklistId}/items', { params: { path: { checklistId } }, body: { name: value } }).then(unwrap)))
            setNewItem('');
        }}
      >
        <input aria-label={t.addItemTo(checklist.name)} placeholder={t.addItem} value={newItem} onChange={(event) => setNewItem(event.target.value)} />
        <button type="submit">{t.addItemButton}</button>
      </form>
      <Disclosure summary={t.checklistActions(checklist.name)}>
        <button type="button" disabled={props.index === 0} onClick={() => void move(props.index - 1)}>
          {t.moveUp}
        </button>
        <button type="button" disabled={props.index === props.count - 1} onClick={() => void move(props.index + 1)}>
          {t.moveDown}
        </button>
        <label>
          {t.copyToCard}
          <select value={copyTo} onChange={(event) => setCopyTo(event.target.value)}>
            <option value="">{t.chooseCard}</option>
            {props.otherCards.map((other) => (
              <option key={other._id} value={other._id}>
                {other.name}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          disabled={!copyTo}
          onClick={async () => {
            if (
              await run(() => client.POST('/api/v1/checklists/{checklistId}/copy', { params: { path: { checklistId } }, body: { card: copyTo } }).then(unwrap))
            )
              setCopyTo('');
          }}
        >
          {t.copyChecklist}
        </button>
        <button
          type="button"
          className="danger"
          onClick={() => {
            if (window.confirm(t.confirmDeleteChecklist(checklist.name, total)))
              void run(() => client.DELETE('/api/v1/checklists/{checklistId}', { params: { path: { checklistId } } }).then(unwrap));
          }}
        >
          {t.deleteChecklist}
        </button>
      </Disclosure>
    </section>
  );
}

function ItemView(props: { item: ChecklistItem; index: number; checklist: Checklist; all: Checklist[]; members: Member[]; run: Run } & After) {
  const { item, run } = props;
  const itemId = item._id;
  const { uploads, start } = useUploads(`/api/v1/checklist-items/${itemId}/attachments`, props.refresh, props.onError);
  const files = item.attachments.filter((attachment) => !attachment.isDeleted);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [target, setTarget] = useState(props.checklist._id);
  const [ticked, setTicked] = useState<boolean | null>(null);
  const count = props.checklist.items.length;
  const reorder = (position: number | 'bottom', checklist?: string) =>
    run(() =>
      client
        .PATCH('/api/v1/checklist-items/{itemId}/position', { params: { path: { itemId } }, body: checklist ? { position, checklist } : { position } })
        .then(unwrap),
    );
  return (
    <li className={`item${item.complete.status ? ' done' : ''}`} data-item-id={itemId}>
      <div className="item-row">
        <input
          type="checkbox"
          aria-label={item.name}
          checked={ticked ?? item.complete.status}
          onChange={async (event) => {
            // The tick shows at once; the server's answer (read again after the write) replaces it.
            const status = event.target.checked;
            setTicked(status);
            await run(() => client.PATCH('/api/v1/checklist-items/{itemId}/complete', { params: { path: { itemId } }, body: { status } }).then(unwrap));
            setTicked(null);
          }}
        />
        {renaming !== null ? (
          <RenameInput
            label={t.itemName}
            initial={renaming}
            onCancel={() => setRenaming(null)}
            onSave={async (name) => {
              if (await run(() => client.PATCH('/api/v1/checklist-items/{itemId}', { params: { path: { itemId } }, body: { name } }).then(unwrap)))
                setRenaming(null);
            }}
          />
        ) : (
          <button type="button" className="item-name" aria-label={t.renameThis(item.name)} onClick={() => setRenaming(item.name)}>
            {item.name}
          </button>
        )}
        {item.date ? <span className="item-date">{formatDate(item.date, { year: 'numeric', month: 'numeric', day: 'numeric' })}</span> : null}
        {item.members.length ? (
          <span className="item-members">
            {formatList(
              item.members.map((member) => member.fullName),
              'unit',
              'short',
            )}
          </span>
        ) : null}
        {files.length ? <span className="item-members">{t.attachments(files.length)}</span> : null}
      </div>
      <Disclosure summary={t.itemActions(item.name)}>
        <DateTimePicker
          label={t.dueDate}
          value={item.date}
          defaultTime={END_OF_DAY}
          onChange={(date) =>
            void run(() => client.PATCH('/api/v1/checklist-items/{itemId}/date', { params: { path: { itemId } }, body: { date } }).then(unwrap))
          }
        />
        <MemberToggles
          members={props.members}
          chosen={item.members}
          onToggle={(memberId) =>
            void run(() =>
              client.POST('/api/v1/checklist-items/{itemId}/members', { params: { path: { itemId } }, body: { members: [memberId] } }).then(unwrap),
            )
          }
        />
        <div className="item-files">
          {files.map((file) => (
            <span key={file._id} className="item-file">
              {file.name}{' '}
              <button type="button" onClick={() => void download(file).catch((caught) => props.onError(String(caught)))}>
                {t.download(file.name)}
              </button>
              <button
                type="button"
                className="danger"
                onClick={() => {
                  if (window.confirm(t.confirmDeleteAttachment(file.name)))
                    void run(() =>
                      client
                        .DELETE('/api/v1/checklist-items/{itemId}/attachments/{attachmentId}', { params: { path: { itemId, attachmentId: file._id } } })
                        .then(unwrap),
                    );
                }}
              >
                {t.deleteNamed(file.name)}
              </button>
            </span>
          ))}
          <FileButton label={t.attachFileTo(item.name)} onFiles={start} />
          <UploadList uploads={uploads} />
        </div>
        <button type="button" disabled={props.index === 0} onClick={() => void reorder(props.index - 1)}>
          {t.moveUp}
        </button>
        <button type="button" disabled={props.index === count - 1} onClick={() => void reorder(props.index + 1)}>
          {t.moveDown}
        </button>
        <label>
          {t.inChecklist}
          <select value={target} onChange={(event) => setTarget(event.target.value)}>
            {props.all.map((checklist) => (
              <option key={checklist._id} value={checklist._id}>
                {checklist.name}
              </option>
            ))}
          </select>
        </label>
        <button type="button" disabled={target === props.checklist._id} onClick={() => void reorder('bottom', target)}>
          {t.moveToChecklist}
        </button>
        <button
          type="button"
          onClick={() =>
            void run(() => client.POST('/api/v1/checklist-items/{itemId}/copy', { params: { path: { itemId } }, body: { checklist: target } }).then(unwrap))
          }
        >
          {t.copyItem}
        </button>
        <button
          type="button"
          className="danger"
          onClick={() =>
            deleteWithUndo({
              id: itemId,
              text: t.itemDeleted(item.name),
              path: `/api/v1/checklist-items/${itemId}`,
              remove: () => run(() => client.DELETE('/api/v1/checklist-items/{itemId}', { params: { path: { itemId } } }).then(unwrap)),
            })
          }
        >
          {t.deleteItem}
        </button>
      </Disclosure>
    </li>
  );
}
